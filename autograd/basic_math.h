#pragma once
// The basic differentiable arithmetic of Variables (Chainer's basic_math): add, sub,
// mul, div, pow and neg, with numpy broadcasting (backward reduces with sum_to), in
// Variable-Variable, Variable-Scalar and Scalar-Variable forms, plus exp and log, and
// the operators + - * / and unary -. Powers are `pow` (C++ has no `**`).
//
// As in Chainer, the Variables must hold floating-point arrays, and two Variables
// must share one dtype (DtypeError otherwise); a Scalar takes the Variable's dtype.
// Shapes that do not broadcast throw DimensionError naming both shapes.

#include "autograd/variable.h"
#include "core/scalar.h"

namespace rensa {

[[nodiscard]] Variable neg(const Variable& x);
[[nodiscard]] Variable exp(const Variable& x);
[[nodiscard]] Variable log(const Variable& x);  // natural logarithm

#define RENSA_DECLARE_VARIABLE_BINARY(name)                            \
    [[nodiscard]] Variable name(const Variable& a, const Variable& b); \
    [[nodiscard]] Variable name(const Variable& a, Scalar b);          \
    [[nodiscard]] Variable name(Scalar a, const Variable& b);
RENSA_DECLARE_VARIABLE_BINARY(add)
RENSA_DECLARE_VARIABLE_BINARY(sub)
RENSA_DECLARE_VARIABLE_BINARY(mul)
RENSA_DECLARE_VARIABLE_BINARY(div)
RENSA_DECLARE_VARIABLE_BINARY(pow)
#undef RENSA_DECLARE_VARIABLE_BINARY

#define RENSA_VARIABLE_OPERATOR(op, fn)                                                                  \
    [[nodiscard]] inline Variable operator op(const Variable& a, const Variable& b) { return fn(a, b); } \
    [[nodiscard]] inline Variable operator op(const Variable& a, Scalar b) { return fn(a, b); }          \
    [[nodiscard]] inline Variable operator op(Scalar a, const Variable& b) { return fn(a, b); }
RENSA_VARIABLE_OPERATOR(+, add)
RENSA_VARIABLE_OPERATOR(-, sub)
RENSA_VARIABLE_OPERATOR(*, mul)
RENSA_VARIABLE_OPERATOR(/, div)
#undef RENSA_VARIABLE_OPERATOR

[[nodiscard]] inline Variable operator-(const Variable& x) { return neg(x); }

}  // namespace rensa
