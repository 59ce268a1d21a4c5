// Unary elementwise kernels, as core/native/kernels_unary.cc: one kernel per dtype and
// output kind (same dtype, or bool for predicates), the op a runtime switch. Half types
// compute in float and round the result once.

#include <cmath>
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
__host__ __device__ C wrap_negate(C x) {
    if constexpr (kIsInt<C>) {
        using U = std::make_unsigned_t<C>;
        return static_cast<C>(U{0} - static_cast<U>(x));  // INT_MIN stays INT_MIN, like numpy
    } else {
        return static_cast<C>(-x);
    }
}

// x < 0 without the "pointless comparison" of unsigned types (and bool).
template <class C>
__host__ __device__ bool negative(C x) {
    if constexpr (std::is_unsigned_v<C>) {
        return false;
    } else {
        return x < C{0};
    }
}

// Ops of every dtype (negative, abs, sign, square, floor, ceil) on the compute type.
template <class T>
__host__ __device__ ComputeT<T> numeric_op(UnaryOp op, ComputeT<T> x) {
    using C = ComputeT<T>;
    switch (op) {
        case UnaryOp::kNegative:
            return wrap_negate(x);
        case UnaryOp::kAbs:
            return negative(x) ? wrap_negate(x) : x;
        case UnaryOp::kSign:
            return x != x ? x : static_cast<C>((C{0} < x) - negative(x));
        case UnaryOp::kSquare:
            if constexpr (kIsInt<C>) {
                using U = std::make_unsigned_t<C>;
                return static_cast<C>(static_cast<U>(x) * static_cast<U>(x));
            } else {
                return static_cast<C>(x * x);
            }
        case UnaryOp::kFloor:
            if constexpr (kIsFloating<T>) return std::floor(x);
            return x;
        case UnaryOp::kCeil:
            if constexpr (kIsFloating<T>) return std::ceil(x);
            return x;
        default:
            return x;
    }
}

// Float-only ops on float or double.
template <class C>
__host__ __device__ C floating_op(UnaryOp op, C x) {
    switch (op) {
        case UnaryOp::kReciprocal:
            return C{1} / x;
        case UnaryOp::kExp:
            return std::exp(x);
        case UnaryOp::kExpm1:
            return std::expm1(x);
        case UnaryOp::kLog:
            return std::log(x);
        case UnaryOp::kLog1p:
            return std::log1p(x);
        case UnaryOp::kLog2:
            return std::log2(x);
        case UnaryOp::kLog10:
            return std::log10(x);
        case UnaryOp::kSqrt:
            return std::sqrt(x);
        case UnaryOp::kRsqrt:
            return C{1} / std::sqrt(x);  // not rsqrt(): the CPU divides, and so must we to match
        case UnaryOp::kSin:
            return std::sin(x);
        case UnaryOp::kCos:
            return std::cos(x);
        case UnaryOp::kTan:
            return std::tan(x);
        case UnaryOp::kArcsin:
            return std::asin(x);
        case UnaryOp::kArccos:
            return std::acos(x);
        case UnaryOp::kArctan:
            return std::atan(x);
        case UnaryOp::kSinh:
            return std::sinh(x);
        case UnaryOp::kCosh:
            return std::cosh(x);
        case UnaryOp::kTanh:
            return std::tanh(x);
        case UnaryOp::kSigmoid: {
            // Neither branch overflows: exp of a non-positive number only.
            const C e = std::exp(-std::abs(x));
            return x >= C{0} ? C{1} / (C{1} + e) : e / (C{1} + e);
        }
        case UnaryOp::kErf:
            return std::erf(x);
        default:
            return numeric_op<C>(op, x);
    }
}

// Same-dtype ops; float-only ops reach here only with float T (checked on the host).
template <class T>
struct UnaryFn {
    static constexpr int kMaxVec = 4;  // bounds the unrolled copies of the op switch
    UnaryOp op;
    __host__ __device__ T operator()(T v) const {
        if constexpr (kIsFloating<T>) {
            return from_compute<T>(floating_op(op, to_compute(v)));
        } else {
            return numeric_op<T>(op, v);
        }
    }
};

template <class T>
struct UnaryPredicateFn {
    static constexpr int kMaxVec = 4;
    UnaryOp op;
    __host__ __device__ bool operator()(T v) const {
        using C = ComputeT<T>;
        const C x = to_compute(v);
        switch (op) {
            case UnaryOp::kLogicalNot:
                return x == C{0};
            case UnaryOp::kIsnan:
                if constexpr (kIsFloating<T>) return isnan(x);
                return false;
            case UnaryOp::kIsinf:
                if constexpr (kIsFloating<T>) return isinf(x);
                return false;
            default:  // kIsfinite
                if constexpr (kIsFloating<T>) return isfinite(x);
                return true;
        }
    }
};

bool is_numeric(UnaryOp op) {
    switch (op) {
        case UnaryOp::kNegative:
        case UnaryOp::kAbs:
        case UnaryOp::kSign:
        case UnaryOp::kSquare:
        case UnaryOp::kFloor:
        case UnaryOp::kCeil:
            return true;
        default:
            return false;
    }
}

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
        if (!kIsFloating<T> && !is_numeric(op)) {
            RENSA_THROW(DtypeError, "unary kernel: op ", static_cast<int>(op), " needs a float dtype, got ", x.dtype());
        }
        launch_elementwise<UnaryFn<T>, T, T>(stream, "unary_kernel", UnaryFn<T>{op}, {&out, &x});
    });
}

}  // namespace rensa::cuda
