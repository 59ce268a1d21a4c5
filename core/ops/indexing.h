#pragma once
// Gather and scatter along an axis. Indices are integer arrays; negative indices wrap
// like numpy; out-of-range ones throw IndexError naming the index, axis and size.

#include <optional>

#include "core/array.h"

namespace rensa::ops {

// numpy.take(x, indices, axis); without an axis, over the flattened x.
[[nodiscard]] Array take(const Array& x, const Array& indices, std::optional<int> axis = std::nullopt);
// numpy.add.at along an axis: target[..., indices, ...] += values (in place, repeats add up).
// values broadcast to target.shape[:axis] + indices.shape + target.shape[axis+1:] and are cast.
void scatter_add(const Array& target, const Array& indices, const Array& values, int axis = 0);

}  // namespace rensa::ops
