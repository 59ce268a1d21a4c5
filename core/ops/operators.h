#pragma once
// Arithmetic and comparison operators on Arrays, forwarding to core/ops/elementwise.h.

#include "core/ops/elementwise.h"

namespace rensa {

#define RENSA_ARRAY_OPERATOR(op, fn)                                                                 \
    [[nodiscard]] inline Array operator op(const Array& a, const Array& b) { return ops::fn(a, b); } \
    [[nodiscard]] inline Array operator op(const Array& a, Scalar b) { return ops::fn(a, b); }       \
    [[nodiscard]] inline Array operator op(Scalar a, const Array& b) { return ops::fn(a, b); }
RENSA_ARRAY_OPERATOR(+, add)
RENSA_ARRAY_OPERATOR(-, subtract)
RENSA_ARRAY_OPERATOR(*, multiply)
RENSA_ARRAY_OPERATOR(/, divide)
RENSA_ARRAY_OPERATOR(==, equal)
RENSA_ARRAY_OPERATOR(!=, not_equal)
RENSA_ARRAY_OPERATOR(<, less)
RENSA_ARRAY_OPERATOR(<=, less_equal)
RENSA_ARRAY_OPERATOR(>, greater)
RENSA_ARRAY_OPERATOR(>=, greater_equal)
#undef RENSA_ARRAY_OPERATOR

[[nodiscard]] inline Array operator-(const Array& a) { return ops::negative(a); }

}  // namespace rensa
