// Unary elementwise kernels: one loop per (row, dtype) of core/elementwise_unary.h, chosen
// outside the element loop. ops only send float dtypes to the float-only rows (exp, log,
// sin, ...); the guard below turns a broken promise into an error.

#include "core/elementwise_table.h"
#include "core/error.h"
#include "core/native/elementwise_loop.h"
#include "core/native/native_kernels.h"

namespace rensa::native {

void NativeKernels::unary(UnaryOp op, const Array& x, const Array& out) {
    const LoopPlan<2> plan = plan_loop<2>({&out, &x});
    visit_dtype(x.dtype(), [&]<typename T>() {
        using C = ComputeT<T>;
        visit_row(op, [&]<class Row>(Row) {
            if constexpr (Row::dtypes == Dtypes::kPredicate) {
                map_unary<bool, T>(plan, [](C v) { return Row::apply(v); });
            } else if constexpr (elementwise::kComputes<Row, C>) {
                map_unary<T, T>(plan, [](C v) { return Row::apply(v); });
            } else {
                RENSA_THROW(DtypeError, "unary kernel: ", Row::name, " needs a float dtype, got ", x.dtype());
            }
        });
    });
}

}  // namespace rensa::native
