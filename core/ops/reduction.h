#pragma once
// Reductions over any set of axes (std::nullopt = all axes), with keepdims, numpy's
// dtypes: sum/prod of bool and integers give int64; mean/var of integers give float64;
// float16/bfloat16 accumulate in float32. Repeated or out-of-range axes throw
// DimensionError; max/min/argmax/argmin of an empty reduction throw ValueError.

#include <optional>

#include "core/array.h"

namespace rensa::ops {

using OptionalAxes = std::optional<Axes>;

[[nodiscard]] Array sum(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);
[[nodiscard]] Array mean(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);
[[nodiscard]] Array prod(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);
[[nodiscard]] Array max(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);  // amax
[[nodiscard]] Array min(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);  // amin
// Variance with `ddof` delta degrees of freedom.
[[nodiscard]] Array var(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false,
                        int64_t ddof = 0);
// log(sum(exp(x))) computed stably (max subtracted first).
[[nodiscard]] Array logsumexp(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);
[[nodiscard]] Array any(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);
[[nodiscard]] Array all(const Array& x, const OptionalAxes& axes = std::nullopt, bool keepdims = false);
// Index (int64) of the first maximum/minimum along axis; over the flattened array without one.
[[nodiscard]] Array argmax(const Array& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
[[nodiscard]] Array argmin(const Array& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
// Inclusive prefix sum along axis (flattened without one); bool/integers give int64.
[[nodiscard]] Array cumsum(const Array& x, std::optional<int> axis = std::nullopt);

}  // namespace rensa::ops
