// Unary elementwise kernels on the rows of core/elementwise_unary.h, the formulas the native
// loops run: one kernel per dtype and output kind (same dtype, or bool for predicates), the
// op a runtime branch.

#include "core/elementwise_table.h"
#include "core/error.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/elementwise.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

// Same-dtype rows; float-only rows reach here only with float T (checked on the host).
// The row is a branch on the uniform op (Note [Elementwise tables]); half types compute in
// float and round the result once.
template <class T>
struct UnaryFn {
    static constexpr int kMaxVec = 4;  // bounds the unrolled copies of the op dispatch
    UnaryOp op;
    __host__ __device__ T operator()(T v) const {
        using C = ComputeT<T>;
        return visit_row(op, [v]<class Row>(Row) -> T {
            if constexpr (Row::dtypes == Dtypes::kPredicate || !elementwise::kComputes<Row, C>) {
                return v;  // never sent here
            } else {
                return from_compute<T>(Row::apply(to_compute(v)));
            }
        });
    }
};

template <class T>
struct UnaryPredicateFn {
    static constexpr int kMaxVec = 4;
    UnaryOp op;
    __host__ __device__ bool operator()(T v) const {
        return visit_row(op, [v]<class Row>(Row) -> bool {
            if constexpr (Row::dtypes == Dtypes::kPredicate) {
                return Row::apply(to_compute(v));
            } else {
                return false;  // never sent here
            }
        });
    }
};

}  // namespace

void CudaKernels::unary(UnaryOp op, const Array& x, const Array& out) {
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    visit_dtype(x.dtype(), [&]<typename T>() {
        if (is_predicate(op)) {
            launch_elementwise<UnaryPredicateFn<T>, bool, T>(stream, "unary_predicate_kernel", UnaryPredicateFn<T>{op},
                                                             {&out, &x});
            return;
        }
        if (!kIsFloating<T> && op_dtypes(op) == Dtypes::kFloat) {
            RENSA_THROW(DtypeError, "unary kernel: ", op_name(op), " needs a float dtype, got ", x.dtype());
        }
        launch_elementwise<UnaryFn<T>, T, T>(stream, "unary_kernel", UnaryFn<T>{op}, {&out, &x});
    });
}

}  // namespace rensa::cuda
