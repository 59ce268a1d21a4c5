#pragma once
// The unary rows of the elementwise op tables (Note [Elementwise tables] in
// core/elementwise_table.h): UnaryOp, one row per op, UnaryTable. Compiled for host and device.

#include <cmath>

#include "core/elementwise_base.h"
#include "core/special_math.h"

namespace rensa {

enum class UnaryOp : uint8_t {
    kNegative,
    kAbs,
    kSign,
    kReciprocal,
    kFloor,
    kCeil,
    kTrunc,
    kExp,
    kExpm1,
    kLog,
    kLog1p,
    kLog2,
    kLog10,
    kSqrt,
    kRsqrt,
    kSquare,
    kSin,
    kCos,
    kTan,
    kArcsin,
    kArccos,
    kArctan,
    kArctanh,
    kSinh,
    kCosh,
    kTanh,
    kSigmoid,
    kErf,
    kErfc,
    kNdtr,
    kErfcx,
    kLgamma,
    kDigamma,
    kLogNdtr,
    kNdtri,
    kErfinv,
    kErfcinv,
    kLogicalNot,
    kIsnan,
    kIsinf,
    kIsfinite,
};

namespace elementwise {

template <UnaryOp Op, Dtypes D>
struct UnaryRow {
    static constexpr UnaryOp op = Op;
    static constexpr Dtypes dtypes = D;
};
// ---- Unary rows.
struct Negative : UnaryRow<UnaryOp::kNegative, Dtypes::kNoBool> {
    static constexpr const char* name = "negative";
    static constexpr const char* bool_hint = "use logical_not for negation";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return wrap_negate(x);
    }
};
struct Abs : UnaryRow<UnaryOp::kAbs, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "abs";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return is_negative(x) ? wrap_negate(x) : x;
    }
};
struct Sign : UnaryRow<UnaryOp::kSign, Dtypes::kNoBool> {
    static constexpr const char* name = "sign";
    static constexpr const char* bool_hint = "use logical_not for negation";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return x != x ? x : static_cast<C>((C{0} < x) - is_negative(x));  // NaN stays NaN
    }
};
struct Reciprocal : UnaryRow<UnaryOp::kReciprocal, Dtypes::kFloat> {
    static constexpr const char* name = "reciprocal";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return C{1} / x;
    }
};
struct Floor : UnaryRow<UnaryOp::kFloor, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "floor";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        if constexpr (std::is_floating_point_v<C>) return std::floor(x);
        return x;
    }
};
struct Ceil : UnaryRow<UnaryOp::kCeil, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "ceil";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        if constexpr (std::is_floating_point_v<C>) return std::ceil(x);
        return x;
    }
};
struct Trunc : UnaryRow<UnaryOp::kTrunc, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "trunc";  // numpy.fix, Chainer's F.fix
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        if constexpr (std::is_floating_point_v<C>) return std::trunc(x);
        return x;
    }
};
struct Exp : UnaryRow<UnaryOp::kExp, Dtypes::kFloat> {
    static constexpr const char* name = "exp";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::exp(x);
    }
};
struct Expm1 : UnaryRow<UnaryOp::kExpm1, Dtypes::kFloat> {
    static constexpr const char* name = "expm1";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::expm1(x);
    }
};
struct Log : UnaryRow<UnaryOp::kLog, Dtypes::kFloat> {
    static constexpr const char* name = "log";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::log(x);
    }
};
struct Log1p : UnaryRow<UnaryOp::kLog1p, Dtypes::kFloat> {
    static constexpr const char* name = "log1p";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::log1p(x);
    }
};
struct Log2 : UnaryRow<UnaryOp::kLog2, Dtypes::kFloat> {
    static constexpr const char* name = "log2";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::log2(x);
    }
};
struct Log10 : UnaryRow<UnaryOp::kLog10, Dtypes::kFloat> {
    static constexpr const char* name = "log10";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::log10(x);
    }
};
struct Sqrt : UnaryRow<UnaryOp::kSqrt, Dtypes::kFloat> {
    static constexpr const char* name = "sqrt";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::sqrt(x);
    }
};
struct Rsqrt : UnaryRow<UnaryOp::kRsqrt, Dtypes::kFloat> {
    static constexpr const char* name = "rsqrt";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return C{1} / std::sqrt(x);  // a division, not CUDA's rsqrt(): both backends round alike
    }
};
struct Square : UnaryRow<UnaryOp::kSquare, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "square";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        if constexpr (kIsInt<C>) return wrap_mul(x, x);
        return static_cast<C>(x * x);
    }
};
struct Sin : UnaryRow<UnaryOp::kSin, Dtypes::kFloat> {
    static constexpr const char* name = "sin";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::sin(x);
    }
};
struct Cos : UnaryRow<UnaryOp::kCos, Dtypes::kFloat> {
    static constexpr const char* name = "cos";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::cos(x);
    }
};
struct Tan : UnaryRow<UnaryOp::kTan, Dtypes::kFloat> {
    static constexpr const char* name = "tan";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::tan(x);
    }
};
struct Arcsin : UnaryRow<UnaryOp::kArcsin, Dtypes::kFloat> {
    static constexpr const char* name = "arcsin";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::asin(x);
    }
};
struct Arccos : UnaryRow<UnaryOp::kArccos, Dtypes::kFloat> {
    static constexpr const char* name = "arccos";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::acos(x);
    }
};
struct Arctan : UnaryRow<UnaryOp::kArctan, Dtypes::kFloat> {
    static constexpr const char* name = "arctan";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::atan(x);
    }
};
struct Arctanh : UnaryRow<UnaryOp::kArctanh, Dtypes::kFloat> {
    static constexpr const char* name = "arctanh";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::atanh(x);
    }
};
struct Sinh : UnaryRow<UnaryOp::kSinh, Dtypes::kFloat> {
    static constexpr const char* name = "sinh";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::sinh(x);
    }
};
struct Cosh : UnaryRow<UnaryOp::kCosh, Dtypes::kFloat> {
    static constexpr const char* name = "cosh";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::cosh(x);
    }
};
struct Tanh : UnaryRow<UnaryOp::kTanh, Dtypes::kFloat> {
    static constexpr const char* name = "tanh";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::tanh(x);
    }
};
struct Sigmoid : UnaryRow<UnaryOp::kSigmoid, Dtypes::kFloat> {
    static constexpr const char* name = "sigmoid";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        const C e = std::exp(-std::abs(x));  // exp of a non-positive number: neither branch overflows
        return x >= C{0} ? C{1} / (C{1} + e) : e / (C{1} + e);
    }
};
struct Erf : UnaryRow<UnaryOp::kErf, Dtypes::kFloat> {
    static constexpr const char* name = "erf";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::erf(x);
    }
};
struct Erfc : UnaryRow<UnaryOp::kErfc, Dtypes::kFloat> {
    static constexpr const char* name = "erfc";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return std::erfc(x);
    }
};
// The standard normal CDF, 0.5 * erfc(-x / sqrt(2)) (accurate in both tails, unlike 1 + erf).
struct Ndtr : UnaryRow<UnaryOp::kNdtr, Dtypes::kFloat> {
    static constexpr const char* name = "ndtr";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return C{0.5} * std::erfc(-x * C{0.70710678118654752440});
    }
};
// exp(x^2) erfc(x), computed in double (special::erfcx in core/special_math.h).
struct Erfcx : UnaryRow<UnaryOp::kErfcx, Dtypes::kFloat> {
    static constexpr const char* name = "erfcx";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return static_cast<C>(special::erfcx(static_cast<double>(x)));
    }
};
// The special functions, in double (Note [Special functions] in core/special_math.h).
struct Lgamma : UnaryRow<UnaryOp::kLgamma, Dtypes::kFloat> {
    static constexpr const char* name = "lgamma";  // scipy.special.gammaln
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return static_cast<C>(special::log_gamma(static_cast<double>(x)));
    }
};
struct Digamma : UnaryRow<UnaryOp::kDigamma, Dtypes::kFloat> {
    static constexpr const char* name = "digamma";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return static_cast<C>(special::digamma(static_cast<double>(x)));
    }
};
struct LogNdtr : UnaryRow<UnaryOp::kLogNdtr, Dtypes::kFloat> {
    static constexpr const char* name = "log_ndtr";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return static_cast<C>(special::log_ndtr(static_cast<double>(x)));
    }
};
struct Ndtri : UnaryRow<UnaryOp::kNdtri, Dtypes::kFloat> {
    static constexpr const char* name = "ndtri";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return static_cast<C>(special::ndtri(static_cast<double>(x)));
    }
};
struct Erfinv : UnaryRow<UnaryOp::kErfinv, Dtypes::kFloat> {
    static constexpr const char* name = "erfinv";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return static_cast<C>(special::erfinv(static_cast<double>(x)));
    }
};
struct Erfcinv : UnaryRow<UnaryOp::kErfcinv, Dtypes::kFloat> {
    static constexpr const char* name = "erfcinv";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x) {
        return static_cast<C>(special::erfcinv(static_cast<double>(x)));
    }
};
struct LogicalNot : UnaryRow<UnaryOp::kLogicalNot, Dtypes::kPredicate> {
    static constexpr const char* name = "logical_not";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C x) {
        return x == C{0};
    }
};
// isnan/isinf/isfinite by IEEE identities (x != x only for NaN; x - x is NaN only for
// NaN and infinities), which hold on both backends without <cmath>'s host-only overloads.
struct Isnan : UnaryRow<UnaryOp::kIsnan, Dtypes::kPredicate> {
    static constexpr const char* name = "isnan";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C x) {
        if constexpr (std::is_floating_point_v<C>) return x != x;
        return false;
    }
};
struct Isinf : UnaryRow<UnaryOp::kIsinf, Dtypes::kPredicate> {
    static constexpr const char* name = "isinf";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C x) {
        if constexpr (std::is_floating_point_v<C>) return x == x && !(x - x == x - x);
        return false;
    }
};
struct Isfinite : UnaryRow<UnaryOp::kIsfinite, Dtypes::kPredicate> {
    static constexpr const char* name = "isfinite";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C x) {
        if constexpr (std::is_floating_point_v<C>) return x - x == x - x;
        return true;
    }
};

using UnaryTable =
    Table<Negative, Abs, Sign, Reciprocal, Floor, Ceil, Trunc, Exp, Expm1, Log, Log1p, Log2, Log10, Sqrt, Rsqrt, Square,
          Sin, Cos, Tan, Arcsin, Arccos, Arctan, Arctanh, Sinh, Cosh, Tanh, Sigmoid, Erf, Erfc, Ndtr, Erfcx, Lgamma,
          Digamma, LogNdtr, Ndtri, Erfinv, Erfcinv, LogicalNot, Isnan, Isinf, Isfinite>;
static_assert(UnaryTable::in_enum_order() && UnaryTable::size == static_cast<std::size_t>(UnaryOp::kIsfinite) + 1,
              "UnaryTable: one row per UnaryOp, in the enum's order");
}  // namespace elementwise

// f(Row{}) for op's row; every call of f must return the same type.
template <class F>
RENSA_HOST_DEVICE decltype(auto) visit_row(UnaryOp op, F&& f) {
    using T = elementwise::UnaryTable;
    return elementwise::visit_index<T, 0, T::size>(static_cast<std::size_t>(op), std::forward<F>(f));
}
}  // namespace rensa
