#pragma once
// Joining, splitting and rearranging arrays (numpy's names). Results are new arrays
// except split, whose pieces are views of the input.

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/array.h"

namespace rensa::ops {

// Join along an existing axis; shapes must match elsewhere; dtypes promote.
[[nodiscard]] Array concatenate(const std::vector<Array>& arrays, int axis = 0);
// Join along a new axis; shapes must match exactly.
[[nodiscard]] Array stack(const std::vector<Array>& arrays, int axis = 0);
// numpy.split into `sections` equal parts (throws ValueError when not divisible) ...
[[nodiscard]] std::vector<Array> split(const Array& x, int64_t sections, int axis = 0);
// ... or at the given indices (array_split semantics for out-of-range indices).
[[nodiscard]] std::vector<Array> split(const Array& x, const std::vector<int64_t>& indices, int axis = 0);
// Constant padding: pad_width[i] = (before, after) for axis i; one pair broadcasts to all axes.
[[nodiscard]] Array pad(const Array& x, const std::vector<std::pair<int64_t, int64_t>>& pad_width, Scalar value = 0);
// numpy.tile with per-axis repetitions.
[[nodiscard]] Array tile(const Array& x, const std::vector<int64_t>& reps);
// numpy.repeat: each element `repeats` times (or repeats[i] times) along axis (flattened without one).
[[nodiscard]] Array repeat(const Array& x, int64_t repeats, std::optional<int> axis = std::nullopt);
[[nodiscard]] Array repeat(const Array& x, const std::vector<int64_t>& repeats, std::optional<int> axis = std::nullopt);
// Reverses the order along the axes (all without any); a view with negative strides.
[[nodiscard]] Array flip(const Array& x, const std::optional<Axes>& axes = std::nullopt);

}  // namespace rensa::ops
