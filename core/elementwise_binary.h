#pragma once
// The binary rows of the elementwise op tables (Note [Elementwise tables] in
// core/elementwise_table.h): BinaryOp, one row per op, BinaryTable. Compiled for host and device.

#include <cmath>

#include "core/elementwise_base.h"
#include "core/special_math.h"

namespace rensa {

enum class BinaryOp : uint8_t {
    kAdd,
    kSubtract,
    kMultiply,
    kDivide,
    kFloorDivide,
    kMod,
    kFmod,
    kPower,
    kMaximum,
    kMinimum,
    kArctan2,
    kPolygamma,          // polygamma(n, x): the order first, as scipy and Chainer
    kZeta,               // the Hurwitz zeta(x, q): the exponent first, as scipy and Chainer
    kKeepWherePositive,  // a where b > 0, else 0 (ReLU's gradient in one pass)
    kEqual,
    kNotEqual,
    kLess,
    kLessEqual,
    kGreater,
    kGreaterEqual,
    kLogicalAnd,
    kLogicalOr,
    kLogicalXor,
};

namespace elementwise {

template <BinaryOp Op, Dtypes D>
struct BinaryRow {
    static constexpr BinaryOp op = Op;
    static constexpr Dtypes dtypes = D;
};

// ---- Binary rows.
struct Add : BinaryRow<BinaryOp::kAdd, Dtypes::kSame> {
    static constexpr const char* name = "add";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) return wrap_add(a, b);
        if constexpr (std::is_same_v<C, bool>) return a || b;
        return static_cast<C>(a + b);
    }
};
struct Subtract : BinaryRow<BinaryOp::kSubtract, Dtypes::kNoBool> {
    static constexpr const char* name = "subtract";
    static constexpr const char* bool_hint = "use logical_xor instead";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) return wrap_sub(a, b);
        if constexpr (std::is_same_v<C, bool>) return a != b;
        return static_cast<C>(a - b);
    }
};
struct Multiply : BinaryRow<BinaryOp::kMultiply, Dtypes::kSame> {
    static constexpr const char* name = "multiply";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) return wrap_mul(a, b);
        if constexpr (std::is_same_v<C, bool>) return a && b;
        return static_cast<C>(a * b);
    }
};
// ops send float operands only (true division); integers truncate, and divide by 0 gives 0.
struct Divide : BinaryRow<BinaryOp::kDivide, Dtypes::kTrueDivide> {
    static constexpr const char* name = "divide";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) {
            if (b == 0) return 0;
            if constexpr (std::is_signed_v<C>) {
                if (b == -1) return wrap_negate(a);
            }
            return static_cast<C>(a / b);
        } else if constexpr (std::is_same_v<C, bool>) {
            return b ? a : false;
        } else {
            return a / b;
        }
    }
};
struct FloorDivide : BinaryRow<BinaryOp::kFloorDivide, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "floor_divide";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) {
            if (b == 0) return 0;
            if constexpr (std::is_signed_v<C>) {
                if (b == -1) return wrap_negate(a);
                C q = static_cast<C>(a / b);
                if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
                return q;
            }
            return static_cast<C>(a / b);
        } else if constexpr (std::is_floating_point_v<C>) {
            return std::floor(a / b);
        } else {
            return a;  // bool: ops compute it in int8, as numpy
        }
    }
};
// Python's sign rule: the result has the divisor's sign.
struct Mod : BinaryRow<BinaryOp::kMod, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "mod";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) {
            if (b == 0) return 0;
            if constexpr (std::is_signed_v<C>) {
                if (b == -1) return 0;
                C r = static_cast<C>(a % b);
                if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
                return r;
            }
            return static_cast<C>(a % b);
        } else if constexpr (std::is_floating_point_v<C>) {
            C r = std::fmod(a, b);
            if (r != 0 && ((r < 0) != (b < 0))) r += b;
            return r;
        } else {
            return a;  // bool: ops compute it in int8, as numpy
        }
    }
};
// C's rule (numpy.fmod): the result has the dividend's sign.
struct Fmod : BinaryRow<BinaryOp::kFmod, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "fmod";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) {
            if (b == 0) return 0;
            if constexpr (std::is_signed_v<C>) {
                if (b == -1) return 0;
            }
            return static_cast<C>(a % b);
        } else if constexpr (std::is_floating_point_v<C>) {
            return std::fmod(a, b);
        } else {
            return a;  // bool: ops compute it in int8, as numpy
        }
    }
};
// Integers: exact by squaring, wrapping; a negative exponent gives the truncated 1 / a^|b|
// (1, -1 or 0) where numpy would raise.
struct Power : BinaryRow<BinaryOp::kPower, Dtypes::kBoolAsInt8> {
    static constexpr const char* name = "power";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (kIsInt<C>) {
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
        } else if constexpr (std::is_floating_point_v<C>) {
            return std::pow(a, b);
        } else {
            return a;  // bool: ops compute it in int8, as numpy
        }
    }
};
// NaN propagates (the first NaN operand is the result).
struct Maximum : BinaryRow<BinaryOp::kMaximum, Dtypes::kSame> {
    static constexpr const char* name = "maximum";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (std::is_floating_point_v<C>) {
            if (a != a) return a;
            if (b != b) return b;
        }
        return a < b ? b : a;
    }
};
struct Minimum : BinaryRow<BinaryOp::kMinimum, Dtypes::kSame> {
    static constexpr const char* name = "minimum";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        if constexpr (std::is_floating_point_v<C>) {
            if (a != a) return a;
            if (b != b) return b;
        }
        return b < a ? b : a;
    }
};
struct Arctan2 : BinaryRow<BinaryOp::kArctan2, Dtypes::kFloat> {
    static constexpr const char* name = "arctan2";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        return std::atan2(a, b);
    }
};
// See Note [Special functions] in core/special_math.h: the order n is an operand because
// Chainer's F.polygamma takes it as an array; non-integer or negative orders give NaN.
struct Polygamma : BinaryRow<BinaryOp::kPolygamma, Dtypes::kFloat> {
    static constexpr const char* name = "polygamma";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C n, C x) {
        return static_cast<C>(special::polygamma(static_cast<double>(n), static_cast<double>(x)));
    }
};
// The Hurwitz zeta function sum_k (q + k)^-x, scipy.special.zeta(x, q) (Note [Special functions]).
struct Zeta : BinaryRow<BinaryOp::kZeta, Dtypes::kFloat> {
    static constexpr const char* name = "zeta";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C x, C q) {
        return static_cast<C>(special::zeta(static_cast<double>(x), static_cast<double>(q)));
    }
};
struct KeepWherePositive : BinaryRow<BinaryOp::kKeepWherePositive, Dtypes::kSame> {
    static constexpr const char* name = "keep_where_positive";
    template <class C>
    RENSA_HOST_DEVICE static C apply(C a, C b) {
        return b > C{0} ? a : C{0};
    }
};
struct Equal : BinaryRow<BinaryOp::kEqual, Dtypes::kPredicate> {
    static constexpr const char* name = "equal";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a == b;
    }
};
struct NotEqual : BinaryRow<BinaryOp::kNotEqual, Dtypes::kPredicate> {
    static constexpr const char* name = "not_equal";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a != b;
    }
};
struct Less : BinaryRow<BinaryOp::kLess, Dtypes::kPredicate> {
    static constexpr const char* name = "less";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a < b;
    }
};
struct LessEqual : BinaryRow<BinaryOp::kLessEqual, Dtypes::kPredicate> {
    static constexpr const char* name = "less_equal";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a <= b;
    }
};
struct Greater : BinaryRow<BinaryOp::kGreater, Dtypes::kPredicate> {
    static constexpr const char* name = "greater";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a > b;
    }
};
struct GreaterEqual : BinaryRow<BinaryOp::kGreaterEqual, Dtypes::kPredicate> {
    static constexpr const char* name = "greater_equal";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a >= b;
    }
};
struct LogicalAnd : BinaryRow<BinaryOp::kLogicalAnd, Dtypes::kPredicate> {
    static constexpr const char* name = "logical_and";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a != C{0} && b != C{0};
    }
};
struct LogicalOr : BinaryRow<BinaryOp::kLogicalOr, Dtypes::kPredicate> {
    static constexpr const char* name = "logical_or";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return a != C{0} || b != C{0};
    }
};
struct LogicalXor : BinaryRow<BinaryOp::kLogicalXor, Dtypes::kPredicate> {
    static constexpr const char* name = "logical_xor";
    template <class C>
    RENSA_HOST_DEVICE static bool apply(C a, C b) {
        return (a != C{0}) != (b != C{0});
    }
};

using BinaryTable = Table<Add, Subtract, Multiply, Divide, FloorDivide, Mod, Fmod, Power, Maximum, Minimum, Arctan2,
                          Polygamma, Zeta, KeepWherePositive, Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual,
                          LogicalAnd, LogicalOr, LogicalXor>;
static_assert(BinaryTable::in_enum_order() && BinaryTable::size == static_cast<std::size_t>(BinaryOp::kLogicalXor) + 1,
              "BinaryTable: one row per BinaryOp, in the enum's order");

}  // namespace elementwise

// f(Row{}) for op's row; every call of f must return the same type.
template <class F>
RENSA_HOST_DEVICE decltype(auto) visit_row(BinaryOp op, F&& f) {
    using T = elementwise::BinaryTable;
    return elementwise::visit_index<T, 0, T::size>(static_cast<std::size_t>(op), std::forward<F>(f));
}

}  // namespace rensa
