#pragma once
// Scalar definitions of the binary ops on a compute type C, with numpy's integer
// semantics and no undefined behaviour: signed integers wrap, division and modulo by
// zero give 0, floor division and modulo follow Python's sign rules.

#include <cmath>
#include <type_traits>

namespace rensa::native::binary_ops {

template <class C>
inline constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;

template <class C>
using Unsigned = std::make_unsigned_t<std::conditional_t<kIsInt<C>, C, int>>;

template <class C>
C add(C a, C b) {
    if constexpr (kIsInt<C>)
        return static_cast<C>(static_cast<Unsigned<C>>(a) + static_cast<Unsigned<C>>(b));
    else
        return static_cast<C>(a + b);
}
template <class C>
C subtract(C a, C b) {
    if constexpr (kIsInt<C>)
        return static_cast<C>(static_cast<Unsigned<C>>(a) - static_cast<Unsigned<C>>(b));
    else
        return static_cast<C>(a - b);
}
template <class C>
C multiply(C a, C b) {
    if constexpr (kIsInt<C>)
        return static_cast<C>(static_cast<Unsigned<C>>(a) * static_cast<Unsigned<C>>(b));
    else
        return static_cast<C>(a * b);
}
template <class C>
C divide(C a, C b) {
    if constexpr (kIsInt<C>) {
        if (b == 0) return 0;
        if constexpr (std::is_signed_v<C>) {
            if (b == -1) return subtract<C>(0, a);
        }
        return static_cast<C>(a / b);
    } else {
        return a / b;
    }
}
template <class C>
C floor_divide(C a, C b) {
    if constexpr (kIsInt<C>) {
        if (b == 0) return 0;
        if constexpr (std::is_signed_v<C>) {
            if (b == -1) return subtract<C>(0, a);
            C q = static_cast<C>(a / b);
            if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
            return q;
        }
        return static_cast<C>(a / b);
    } else if constexpr (std::is_floating_point_v<C>) {
        return std::floor(a / b);
    } else {
        return a;  // bool: ops promote it to int8 first, as numpy
    }
}
template <class C>
C mod(C a, C b) {
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
        return a;  // bool: ops promote it to int8 first, as numpy
    }
}
// Integers: exact by squaring, wrapping; a negative exponent gives the truncated
// 1 / a^|b| (1, -1 or 0) where numpy would raise.
template <class C>
C power(C a, C b) {
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
        return a;  // bool: ops promote it to int8 first, as numpy
    }
}
template <class C>
C maximum(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return a < b ? b : a;
}
template <class C>
C minimum(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return b < a ? b : a;
}

}  // namespace rensa::native::binary_ops
