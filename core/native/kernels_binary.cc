// Binary elementwise kernels: one loop per (row, dtype) of core/elementwise_binary.h, chosen
// outside the element loop. Arithmetic keeps the operands' dtype; predicates write bool. A
// scalar operand is a 0-d broadcast, which map_binary's stride-0 path handles without a
// temporary array of a's shape.

#include "core/backend.h"
#include "core/elementwise_table.h"
#include "core/error.h"
#include "core/native/elementwise_loop.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

void run_binary(BinaryOp op, Dtype dtype, const LoopPlan<3>& plan) {
    visit_dtype(dtype, [&]<typename T>() {
        using C = ComputeT<T>;
        visit_row(op, [&]<class Row>(Row) {
            if constexpr (Row::dtypes == Dtypes::kPredicate) {
                map_binary<bool, T>(plan, [](C a, C b) { return Row::apply(a, b); });
            } else if constexpr (elementwise::kComputes<Row, C>) {
                map_binary<T, T>(plan, [](C a, C b) { return Row::apply(a, b); });
            } else {
                RENSA_THROW(DtypeError, "binary kernel: ", Row::name, " needs a float dtype, got ", dtype);
            }
        });
    });
}

}  // namespace

void NativeKernels::binary(BinaryOp op, const Array& a, const Array& b, const Array& out) {
    run_binary(op, a.dtype(), plan_loop<3>({&out, &a, &b}));
}

void NativeKernels::binary_scalar(BinaryOp op, const Array& a, Scalar s, bool reversed, const Array& out) {
    // The scalar lives in a 0-d host array of a's dtype, broadcast with stride 0.
    Array scalar = Array::empty({}, a.dtype(), Device::native());
    fill(scalar, s);
    const Array b = scalar.broadcast_to(a.shape());
    run_binary(op, a.dtype(), reversed ? plan_loop<3>({&out, &b, &a}) : plan_loop<3>({&out, &a, &b}));
}

}  // namespace rensa::native
