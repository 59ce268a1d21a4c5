#pragma once
// Differentiable shape routines that the basic arithmetic's backward needs (Chainer's
// F.broadcast_to, F.sum_to, F.sum, F.reshape). Each is the other's backward:
// broadcast_to <-> sum_to, sum -> broadcast_to, reshape -> reshape.

#include <optional>

#include "autograd/variable.h"

namespace rensa {

// x broadcast to `shape` (numpy rules); x itself when the shape already matches.
// Throws DimensionError when x does not broadcast to `shape`.
[[nodiscard]] Variable broadcast_to(const Variable& x, const Shape& shape);
// Sums x down to `shape`, the inverse of broadcasting: leading axes are summed away and
// axes where `shape` has 1 are summed with keepdims. x itself when the shape matches.
// Throws DimensionError when x's shape is not a broadcast of `shape`.
[[nodiscard]] Variable sum_to(const Variable& x, const Shape& shape);
// Sum over `axes` (all when none), keeping x's dtype.
[[nodiscard]] Variable sum(const Variable& x, const std::optional<Axes>& axes = std::nullopt, bool keepdims = false);
// numpy reshape (one -1 is inferred).
[[nodiscard]] Variable reshape(const Variable& x, const Shape& shape);

namespace detail {
// The array form of sum_to (no graph).
[[nodiscard]] Array sum_to_array(const Array& x, const Shape& shape);
}  // namespace detail

}  // namespace rensa
