#pragma once
// Stable sorting along an axis (the last by default); NaN sorts last, as numpy.

#include "core/array.h"

namespace rensa::ops {

[[nodiscard]] Array sort(const Array& x, int axis = -1);
[[nodiscard]] Array argsort(const Array& x, int axis = -1);  // int64

}  // namespace rensa::ops
