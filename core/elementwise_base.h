#pragma once
// The shared pieces of the elementwise op tables (Note [Elementwise tables] in
// core/elementwise_table.h): dtype rules, wrapping integer arithmetic, the Table type and
// the index visitor. Compiled for host and device.

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/host_device.h"

namespace rensa {

// The dtype an op computes in, from its (promoted) input dtype.
enum class Dtypes : uint8_t {
    kSame,        // the input dtype; the output has it too
    kBoolAsInt8,  // as kSame, but bool computes in int8 (numpy)
    kNoBool,      // as kSame; bool input is an error (the row's bool_hint says what to use)
    kFloat,       // float stays; bool and integers compute in the smallest float that holds them
    kTrueDivide,  // float stays; bool and integers compute in the default float
    kPredicate,   // the input dtype; the output is bool
};

namespace elementwise {

template <class C>
inline constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <class C>
using Unsigned = std::make_unsigned_t<std::conditional_t<kIsInt<C>, C, int>>;

template <class C>
RENSA_HOST_DEVICE C wrap_add(C a, C b) {
    return static_cast<C>(static_cast<Unsigned<C>>(a) + static_cast<Unsigned<C>>(b));
}
template <class C>
RENSA_HOST_DEVICE C wrap_sub(C a, C b) {
    return static_cast<C>(static_cast<Unsigned<C>>(a) - static_cast<Unsigned<C>>(b));
}
template <class C>
RENSA_HOST_DEVICE C wrap_mul(C a, C b) {
    return static_cast<C>(static_cast<Unsigned<C>>(a) * static_cast<Unsigned<C>>(b));
}
// -x; INT_MIN stays INT_MIN, like numpy.
template <class C>
RENSA_HOST_DEVICE C wrap_negate(C x) {
    if constexpr (kIsInt<C>) {
        return wrap_sub(C{0}, x);
    } else {
        return static_cast<C>(-x);
    }
}
// x < 0 without the "pointless comparison" of unsigned types and bool.
template <class C>
RENSA_HOST_DEVICE bool is_negative(C x) {
    if constexpr (std::is_unsigned_v<C>) {
        return false;
    } else {
        return x < C{0};
    }
}

template <class... Rows>
struct Table {
    static constexpr std::size_t size = sizeof...(Rows);
    template <std::size_t I>
    using Row = std::tuple_element_t<I, std::tuple<Rows...>>;

    // Whether row i has enum value i, for every row.
    static constexpr bool in_enum_order() {
        std::size_t i = 0;
        return ((static_cast<std::size_t>(Rows::op) == i++) && ...);
    }
};

// Calls f(Row{}) for the row with index i in [Lo, Hi): a binary search, so a uniform op costs
// a handful of branches per element inside a GPU kernel.
template <class Tbl, std::size_t Lo, std::size_t Hi, class F>
RENSA_HOST_DEVICE decltype(auto) visit_index(std::size_t i, F&& f) {
    if constexpr (Hi - Lo == 1) {
        return f(typename Tbl::template Row<Lo>{});
    } else {
        constexpr std::size_t mid = (Lo + Hi) / 2;
        if (i < mid) return visit_index<Tbl, Lo, mid>(i, std::forward<F>(f));
        return visit_index<Tbl, mid, Hi>(i, std::forward<F>(f));
    }
}

// Row types accepted by a compute type: float-only rows take float compute types only.
template <class Row, class C>
inline constexpr bool kComputes = Row::dtypes != Dtypes::kFloat || std::is_floating_point_v<C>;

}  // namespace elementwise
}  // namespace rensa
