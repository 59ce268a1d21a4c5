// Unary elementwise kernels. ops only send float dtypes to the float-only ops
// (exp, log, sin, ...); the guards below turn a broken promise into an error.

#include <cmath>
#include <type_traits>

#include "core/error.h"
#include "core/native/elementwise_loop.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

template <class C>
C wrap_negate(C x) {
    if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
        using U = std::make_unsigned_t<C>;
        return static_cast<C>(U{0} - static_cast<U>(x));  // INT_MIN stays INT_MIN, like numpy
    } else {
        return -x;
    }
}

template <class T>
void predicate(UnaryOp op, const LoopPlan<2>& plan) {
    using C = ComputeT<T>;
    switch (op) {
        case UnaryOp::kLogicalNot:
            return map_unary<bool, T>(plan, [](C x) { return x == C{0}; });
        case UnaryOp::kIsnan:
            if constexpr (kIsFloating<T>) return map_unary<bool, T>(plan, [](C x) { return std::isnan(x); });
            return map_unary<bool, T>(plan, [](C) { return false; });
        case UnaryOp::kIsinf:
            if constexpr (kIsFloating<T>) return map_unary<bool, T>(plan, [](C x) { return std::isinf(x); });
            return map_unary<bool, T>(plan, [](C) { return false; });
        case UnaryOp::kIsfinite:
            if constexpr (kIsFloating<T>) return map_unary<bool, T>(plan, [](C x) { return std::isfinite(x); });
            return map_unary<bool, T>(plan, [](C) { return true; });
        default:
            RENSA_ASSERT(false);
    }
}

// Ops defined for every numeric dtype.
template <class T>
bool numeric(UnaryOp op, const LoopPlan<2>& plan) {
    using C = ComputeT<T>;
    switch (op) {
        case UnaryOp::kNegative:
            map_unary<T, T>(plan, [](C x) { return wrap_negate(x); });
            return true;
        case UnaryOp::kAbs:
            map_unary<T, T>(plan, [](C x) { return x < C{0} ? wrap_negate(x) : x; });
            return true;
        case UnaryOp::kSign:
            map_unary<T, T>(plan, [](C x) { return x != x ? x : static_cast<C>((C{0} < x) - (x < C{0})); });
            return true;
        case UnaryOp::kSquare:
            if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
                using U = std::make_unsigned_t<C>;
                map_unary<T, T>(plan, [](C x) { return static_cast<C>(static_cast<U>(x) * static_cast<U>(x)); });
            } else {
                map_unary<T, T>(plan, [](C x) { return static_cast<C>(x * x); });
            }
            return true;
        case UnaryOp::kFloor:
            if constexpr (kIsFloating<T>)
                map_unary<T, T>(plan, [](C x) { return std::floor(x); });
            else
                map_unary<T, T>(plan, [](C x) { return x; });
            return true;
        case UnaryOp::kCeil:
            if constexpr (kIsFloating<T>)
                map_unary<T, T>(plan, [](C x) { return std::ceil(x); });
            else
                map_unary<T, T>(plan, [](C x) { return x; });
            return true;
        default:
            return false;
    }
}

template <class T>
void floating(UnaryOp op, const LoopPlan<2>& plan) {
    using C = ComputeT<T>;
    switch (op) {
        case UnaryOp::kReciprocal:
            return map_unary<T, T>(plan, [](C x) { return C{1} / x; });
        case UnaryOp::kExp:
            return map_unary<T, T>(plan, [](C x) { return std::exp(x); });
        case UnaryOp::kExpm1:
            return map_unary<T, T>(plan, [](C x) { return std::expm1(x); });
        case UnaryOp::kLog:
            return map_unary<T, T>(plan, [](C x) { return std::log(x); });
        case UnaryOp::kLog1p:
            return map_unary<T, T>(plan, [](C x) { return std::log1p(x); });
        case UnaryOp::kLog2:
            return map_unary<T, T>(plan, [](C x) { return std::log2(x); });
        case UnaryOp::kLog10:
            return map_unary<T, T>(plan, [](C x) { return std::log10(x); });
        case UnaryOp::kSqrt:
            return map_unary<T, T>(plan, [](C x) { return std::sqrt(x); });
        case UnaryOp::kRsqrt:
            return map_unary<T, T>(plan, [](C x) { return C{1} / std::sqrt(x); });
        case UnaryOp::kSin:
            return map_unary<T, T>(plan, [](C x) { return std::sin(x); });
        case UnaryOp::kCos:
            return map_unary<T, T>(plan, [](C x) { return std::cos(x); });
        case UnaryOp::kTan:
            return map_unary<T, T>(plan, [](C x) { return std::tan(x); });
        case UnaryOp::kArcsin:
            return map_unary<T, T>(plan, [](C x) { return std::asin(x); });
        case UnaryOp::kArccos:
            return map_unary<T, T>(plan, [](C x) { return std::acos(x); });
        case UnaryOp::kArctan:
            return map_unary<T, T>(plan, [](C x) { return std::atan(x); });
        case UnaryOp::kSinh:
            return map_unary<T, T>(plan, [](C x) { return std::sinh(x); });
        case UnaryOp::kCosh:
            return map_unary<T, T>(plan, [](C x) { return std::cosh(x); });
        case UnaryOp::kTanh:
            return map_unary<T, T>(plan, [](C x) { return std::tanh(x); });
        case UnaryOp::kSigmoid:
            // Written so that neither branch overflows: exp of a non-positive number only.
            return map_unary<T, T>(plan, [](C x) {
                const C e = std::exp(-std::abs(x));
                return x >= C{0} ? C{1} / (C{1} + e) : e / (C{1} + e);
            });
        case UnaryOp::kErf:
            return map_unary<T, T>(plan, [](C x) { return std::erf(x); });
        default:
            RENSA_ASSERT(false);
    }
}

}  // namespace

void NativeKernels::unary(UnaryOp op, const Array& x, const Array& out) {
    const LoopPlan<2> plan = plan_loop<2>({&out, &x});
    visit_dtype(x.dtype(), [&]<typename T>() {
        if (is_predicate(op)) return predicate<T>(op, plan);
        if (numeric<T>(op, plan)) return;
        if constexpr (kIsFloating<T>) {
            floating<T>(op, plan);
        } else {
            RENSA_THROW(DtypeError, "unary kernel: op ", static_cast<int>(op), " needs a float dtype, got ", x.dtype());
        }
    });
}

}  // namespace rensa::native
