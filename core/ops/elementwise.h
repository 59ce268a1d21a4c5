#pragma once
// Elementwise routines with numpy's broadcasting and promotion. Binary routines take
// (Array, Array), (Array, Scalar) or (Scalar, Array); a Scalar promotes weakly (NEP 50).
// Shapes that do not broadcast throw DimensionError naming the routine and both shapes.

#include "core/array.h"
#include "core/elementwise_table.h"

namespace rensa::ops {

// --- Any row of the elementwise tables (core/elementwise_table.h), by its enum value.
[[nodiscard]] Array elementwise(UnaryOp op, const Array& x);
[[nodiscard]] Array elementwise(BinaryOp op, const Array& a, const Array& b);
[[nodiscard]] Array elementwise(BinaryOp op, const Array& a, Scalar b);
[[nodiscard]] Array elementwise(BinaryOp op, Scalar a, const Array& b);

// --- Unary. Integer inputs of exp/log/sqrt/sin/... become float64, as in numpy.
[[nodiscard]] Array negative(const Array& x);
[[nodiscard]] Array abs(const Array& x);
[[nodiscard]] Array sign(const Array& x);
[[nodiscard]] Array reciprocal(const Array& x);
[[nodiscard]] Array floor(const Array& x);
[[nodiscard]] Array ceil(const Array& x);
[[nodiscard]] Array trunc(const Array& x);  // toward zero (numpy.fix)
[[nodiscard]] Array exp(const Array& x);
[[nodiscard]] Array expm1(const Array& x);
[[nodiscard]] Array log(const Array& x);
[[nodiscard]] Array log1p(const Array& x);
[[nodiscard]] Array log2(const Array& x);
[[nodiscard]] Array log10(const Array& x);
[[nodiscard]] Array sqrt(const Array& x);
[[nodiscard]] Array rsqrt(const Array& x);
[[nodiscard]] Array square(const Array& x);
[[nodiscard]] Array sin(const Array& x);
[[nodiscard]] Array cos(const Array& x);
[[nodiscard]] Array tan(const Array& x);
[[nodiscard]] Array arcsin(const Array& x);
[[nodiscard]] Array arccos(const Array& x);
[[nodiscard]] Array arctan(const Array& x);
[[nodiscard]] Array sinh(const Array& x);
[[nodiscard]] Array cosh(const Array& x);
[[nodiscard]] Array tanh(const Array& x);
[[nodiscard]] Array sigmoid(const Array& x);
[[nodiscard]] Array erf(const Array& x);
[[nodiscard]] Array erfc(const Array& x);
[[nodiscard]] Array ndtr(const Array& x);  // the standard normal CDF
[[nodiscard]] Array logical_not(const Array& x);
[[nodiscard]] Array isnan(const Array& x);
[[nodiscard]] Array isinf(const Array& x);
[[nodiscard]] Array isfinite(const Array& x);

// --- Binary.
#define RENSA_DECLARE_BINARY(name)                            \
    [[nodiscard]] Array name(const Array& a, const Array& b); \
    [[nodiscard]] Array name(const Array& a, Scalar b);       \
    [[nodiscard]] Array name(Scalar a, const Array& b);
RENSA_DECLARE_BINARY(add)
RENSA_DECLARE_BINARY(subtract)
RENSA_DECLARE_BINARY(multiply)
RENSA_DECLARE_BINARY(divide)  // true division: integers give float64
RENSA_DECLARE_BINARY(floor_divide)
RENSA_DECLARE_BINARY(mod)   // Python's sign convention (result has the divisor's sign)
RENSA_DECLARE_BINARY(fmod)  // C's sign convention (result has the dividend's sign)
RENSA_DECLARE_BINARY(power)
RENSA_DECLARE_BINARY(maximum)  // NaN propagates
RENSA_DECLARE_BINARY(minimum)
RENSA_DECLARE_BINARY(arctan2)
RENSA_DECLARE_BINARY(keep_where_positive)  // a where b > 0, else 0: one pass for ReLU-like gradients
RENSA_DECLARE_BINARY(equal)                // comparisons and logical ops give bool
RENSA_DECLARE_BINARY(not_equal)
RENSA_DECLARE_BINARY(less)
RENSA_DECLARE_BINARY(less_equal)
RENSA_DECLARE_BINARY(greater)
RENSA_DECLARE_BINARY(greater_equal)
RENSA_DECLARE_BINARY(logical_and)
RENSA_DECLARE_BINARY(logical_or)
RENSA_DECLARE_BINARY(logical_xor)
#undef RENSA_DECLARE_BINARY

// cond ? a : b, broadcasting all three; cond is cast to bool.
[[nodiscard]] Array where(const Array& cond, const Array& a, const Array& b);
[[nodiscard]] Array where(const Array& cond, const Array& a, Scalar b);
[[nodiscard]] Array where(const Array& cond, Scalar a, const Array& b);
// min(max(x, lo), hi); keeps x's dtype.
[[nodiscard]] Array clip(const Array& x, Scalar lo, Scalar hi);

// In-place: out op= b (b broadcast to out, cast to out's dtype).
void add_inplace(const Array& out, const Array& b);
void multiply_inplace(const Array& out, Scalar b);

}  // namespace rensa::ops
