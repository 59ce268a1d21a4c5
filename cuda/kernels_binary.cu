// Binary elementwise kernels on the rows of core/elementwise_binary.h, the formulas the
// native loops run. One kernel per dtype and output kind, the op a runtime branch; a scalar
// operand is a functor member.

#include <cstring>

#include "core/elementwise_table.h"
#include "core/error.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/elementwise.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

// Note [Shared op bodies]: the dispatch over all arithmetic rows is one non-inlined
// function per dtype, called by the four kernels of that dtype (binary and scalar,
// contiguous and strided) and by each unrolled lane, instead of being copied into all of
// them: that cut this file's compile time fourfold. add, subtract and multiply, the hot
// ones, stay inline.
template <class T>
__host__ __device__ __noinline__ T arithmetic_any(BinaryOp op, T a, T b) {
    using C = ComputeT<T>;
    return visit_row(op, [a, b]<class Row>(Row) -> T {
        if constexpr (Row::dtypes == Dtypes::kPredicate || !elementwise::kComputes<Row, C>) {
            return a;  // never sent here
        } else {
            return from_compute<T>(Row::apply(to_compute(a), to_compute(b)));
        }
    });
}

template <class T>
__host__ __device__ __forceinline__ T arithmetic(BinaryOp op, T a, T b) {
    namespace e = elementwise;
    if (op == BinaryOp::kAdd) return from_compute<T>(e::Add::apply(to_compute(a), to_compute(b)));
    if (op == BinaryOp::kSubtract) return from_compute<T>(e::Subtract::apply(to_compute(a), to_compute(b)));
    if (op == BinaryOp::kMultiply) return from_compute<T>(e::Multiply::apply(to_compute(a), to_compute(b)));
    return arithmetic_any(op, a, b);
}

template <class T>
__host__ __device__ bool predicate(BinaryOp op, T a, T b) {
    return visit_row(op, [a, b]<class Row>(Row) -> bool {
        if constexpr (Row::dtypes == Dtypes::kPredicate) {
            return Row::apply(to_compute(a), to_compute(b));
        } else {
            return false;  // never sent here
        }
    });
}

// kMaxVec 4: bounds the unrolled copies of the op switch (16-byte accesses for float32).
template <class T>
struct BinaryFn {
    static constexpr int kMaxVec = 4;
    BinaryOp op;
    __host__ __device__ T operator()(T a, T b) const { return arithmetic(op, a, b); }
};
template <class T>
struct BinaryPredicateFn {
    static constexpr int kMaxVec = 4;
    BinaryOp op;
    __host__ __device__ bool operator()(T a, T b) const { return predicate(op, a, b); }
};
// op(a, s), or op(s, a) when reversed.
template <class T>
struct ScalarFn {
    static constexpr int kMaxVec = 4;
    BinaryOp op;
    T s;
    bool reversed;
    __host__ __device__ T operator()(T a) const { return reversed ? arithmetic(op, s, a) : arithmetic(op, a, s); }
};
template <class T>
struct ScalarPredicateFn {
    static constexpr int kMaxVec = 4;
    BinaryOp op;
    T s;
    bool reversed;
    __host__ __device__ bool operator()(T a) const { return reversed ? predicate(op, s, a) : predicate(op, a, s); }
};

void check_float_op(BinaryOp op, Dtype dtype) {
    RENSA_CHECK(op_dtypes(op) != Dtypes::kFloat || is_float(dtype), DtypeError, "binary kernel: ", op_name(op),
                " needs a float dtype, got ", dtype);
}

}  // namespace

void CudaKernels::binary(BinaryOp op, const Array& a, const Array& b, const Array& out) {
    DeviceGuard guard{device_};
    check_float_op(op, a.dtype());
    const cudaStream_t stream = current_stream(device_);
    visit_dtype(a.dtype(), [&]<typename T>() {
        if (is_predicate(op)) {
            launch_elementwise<BinaryPredicateFn<T>, bool, T, T>(stream, "binary_predicate_kernel",
                                                                 BinaryPredicateFn<T>{op}, {&out, &a, &b});
        } else {
            launch_elementwise<BinaryFn<T>, T, T, T>(stream, "binary_kernel", BinaryFn<T>{op}, {&out, &a, &b});
        }
    });
}

void CudaKernels::binary_scalar(BinaryOp op, const Array& a, Scalar s, bool reversed, const Array& out) {
    DeviceGuard guard{device_};
    check_float_op(op, a.dtype());
    const cudaStream_t stream = current_stream(device_);
    // s cast to a's dtype as fill does (the native backend fills a 0-d array with it).
    const uint64_t bits = scalar_bits(s, a.dtype());
    visit_dtype(a.dtype(), [&]<typename T>() {
        T value;
        std::memcpy(static_cast<void*>(&value), &bits, sizeof(T));
        if (is_predicate(op)) {
            launch_elementwise<ScalarPredicateFn<T>, bool, T>(stream, "binary_scalar_predicate_kernel",
                                                              ScalarPredicateFn<T>{op, value, reversed}, {&out, &a});
        } else {
            launch_elementwise<ScalarFn<T>, T, T>(stream, "binary_scalar_kernel", ScalarFn<T>{op, value, reversed},
                                                  {&out, &a});
        }
    });
}

}  // namespace rensa::cuda
