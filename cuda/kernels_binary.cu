// Binary elementwise kernels, as core/native/kernels_binary.cc and binary_ops.h: numpy's
// integer semantics without undefined behaviour (signed integers wrap, division and
// modulo by zero give 0, floor division and modulo follow Python's signs). One kernel per
// dtype and output kind, the op a runtime switch; a scalar operand is a functor member.

#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/error.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/elementwise.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

template <class C>
inline constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <class C>
using Unsigned = std::make_unsigned_t<std::conditional_t<kIsInt<C>, C, int>>;

template <class C>
__host__ __device__ C wrap_sub(C a, C b) {
    return static_cast<C>(static_cast<Unsigned<C>>(a) - static_cast<Unsigned<C>>(b));
}

template <class C>
__host__ __device__ C int_power(C a, C b) {
    if constexpr (std::is_signed_v<C>) {
        if (b < 0) return a == 1 ? C{1} : a == -1 ? ((b & 1) ? C{-1} : C{1}) : C{0};
    }
    using U = Unsigned<C>;
    U result = 1, base = static_cast<U>(a);
    for (auto e = static_cast<U>(b); e != 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
    }
    return static_cast<C>(result);
}

// Integer arithmetic (int8, uint8, int32, int64).
template <class C>
__host__ __device__ C int_op(BinaryOp op, C a, C b) {
    using U = Unsigned<C>;
    switch (op) {
        case BinaryOp::kAdd:
            return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
        case BinaryOp::kSubtract:
            return wrap_sub(a, b);
        case BinaryOp::kMultiply:
            return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
        case BinaryOp::kDivide:
        case BinaryOp::kFloorDivide: {
            if (b == 0) return 0;
            if constexpr (std::is_signed_v<C>) {
                if (b == -1) return wrap_sub(C{0}, a);
                C q = static_cast<C>(a / b);
                if (op == BinaryOp::kFloorDivide && (a % b != 0) && ((a < 0) != (b < 0))) --q;
                return q;
            }
            return static_cast<C>(a / b);
        }
        case BinaryOp::kMod: {
            if (b == 0) return 0;
            if constexpr (std::is_signed_v<C>) {
                if (b == -1) return 0;
                C r = static_cast<C>(a % b);
                if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
                return r;
            }
            return static_cast<C>(a % b);
        }
        case BinaryOp::kPower:
            return int_power(a, b);
        case BinaryOp::kMaximum:
            return a < b ? b : a;
        case BinaryOp::kMinimum:
            return b < a ? b : a;
        default:  // kKeepWherePositive (kArctan2 is rejected on the host)
            return b > C{0} ? a : C{0};
    }
}

// Float arithmetic on float or double (half types arrive as float).
template <class C>
__host__ __device__ C float_op(BinaryOp op, C a, C b) {
    switch (op) {
        case BinaryOp::kAdd:
            return a + b;
        case BinaryOp::kSubtract:
            return a - b;
        case BinaryOp::kMultiply:
            return a * b;
        case BinaryOp::kDivide:
            return a / b;
        case BinaryOp::kFloorDivide:
            return std::floor(a / b);
        case BinaryOp::kMod: {
            C r = std::fmod(a, b);
            if (r != 0 && ((r < 0) != (b < 0))) r += b;
            return r;
        }
        case BinaryOp::kPower:
            return std::pow(a, b);
        case BinaryOp::kMaximum:
            if (a != a) return a;
            if (b != b) return b;
            return a < b ? b : a;
        case BinaryOp::kMinimum:
            if (a != a) return a;
            if (b != b) return b;
            return b < a ? b : a;
        case BinaryOp::kArctan2:
            return std::atan2(a, b);
        default:  // kKeepWherePositive
            return b > C{0} ? a : C{0};
    }
}

// Bool arithmetic, as binary_ops.h on bool (ops promote bool first where numpy does).
__host__ __device__ bool bool_op(BinaryOp op, bool a, bool b) {
    switch (op) {
        case BinaryOp::kAdd:
            return a || b;  // bool(a + b)
        case BinaryOp::kSubtract:
            return a != b;  // bool(a - b)
        case BinaryOp::kMultiply:
            return a && b;
        case BinaryOp::kDivide:
            return b ? a : false;  // a / b; division by false is undefined on the CPU
        case BinaryOp::kMaximum:
            return a < b ? b : a;
        case BinaryOp::kMinimum:
            return b < a ? b : a;
        case BinaryOp::kKeepWherePositive:
            return b ? a : false;
        default:  // floor_divide, mod, power: the first operand
            return a;
    }
}

// Note [Shared op bodies]: the full op switch is one non-inlined function per dtype,
// called by the four kernels of that dtype (binary and scalar, contiguous and strided)
// and by each unrolled lane, instead of being copied into all of them: that cut this
// file's compile time fourfold. add, subtract and multiply, the hot ones, stay inline.
template <class T>
__host__ __device__ __noinline__ T arithmetic_any(BinaryOp op, T a, T b) {
    if constexpr (kIsFloating<T>) {
        return from_compute<T>(float_op(op, to_compute(a), to_compute(b)));
    } else if constexpr (std::is_same_v<T, bool>) {
        return bool_op(op, a, b);
    } else {
        return int_op(op, a, b);
    }
}

template <class T>
__host__ __device__ __forceinline__ T arithmetic(BinaryOp op, T a, T b) {
    using C = ComputeT<T>;
    if constexpr (!std::is_same_v<T, bool>) {
        if constexpr (kIsInt<T>) {
            using U = Unsigned<T>;
            if (op == BinaryOp::kAdd) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
            if (op == BinaryOp::kSubtract) return wrap_sub(a, b);
            if (op == BinaryOp::kMultiply) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
        } else {
            if (op == BinaryOp::kAdd) return from_compute<T>(static_cast<C>(to_compute(a) + to_compute(b)));
            if (op == BinaryOp::kSubtract) return from_compute<T>(static_cast<C>(to_compute(a) - to_compute(b)));
            if (op == BinaryOp::kMultiply) return from_compute<T>(static_cast<C>(to_compute(a) * to_compute(b)));
        }
    }
    return arithmetic_any(op, a, b);
}

template <class T>
__host__ __device__ bool predicate(BinaryOp op, T va, T vb) {
    using C = ComputeT<T>;
    const C a = to_compute(va), b = to_compute(vb);
    switch (op) {
        case BinaryOp::kEqual:
            return a == b;
        case BinaryOp::kNotEqual:
            return a != b;
        case BinaryOp::kLess:
            return a < b;
        case BinaryOp::kLessEqual:
            return a <= b;
        case BinaryOp::kGreater:
            return a > b;
        case BinaryOp::kGreaterEqual:
            return a >= b;
        case BinaryOp::kLogicalAnd:
            return a != C{0} && b != C{0};
        case BinaryOp::kLogicalOr:
            return a != C{0} || b != C{0};
        default:  // kLogicalXor
            return (a != C{0}) != (b != C{0});
    }
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
    RENSA_CHECK(op != BinaryOp::kArctan2 || is_float(dtype), DtypeError, "arctan2 kernel: needs a float dtype");
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
