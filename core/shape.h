#pragma once
// Shape, Strides (in bytes) and Axes, with the helpers every routine shares:
// element counts with overflow checks, contiguous strides, axis normalisation and
// numpy's broadcasting rules.

#include <cstdint>
#include <ostream>
#include <string_view>

#include "core/small_vector.h"

namespace rensa {

using Shape = SmallVector<int64_t>;
using Strides = SmallVector<int64_t>;  // bytes; may be zero (broadcast) or negative (flip)
using Axes = SmallVector<int>;

// Number of elements; throws ValueError if a dimension is negative or the product
// overflows int64 (checked before anything is allocated).
int64_t shape_size(const Shape& shape);

// Row-major strides in bytes for `shape` with elements of `itemsize` bytes.
Strides contiguous_strides(const Shape& shape, int64_t itemsize);

// Maps a possibly negative axis into [0, ndim); throws DimensionError naming `op`.
int normalize_axis(int64_t axis, int ndim, std::string_view op);
// Normalises every axis and rejects repeats; the result keeps the given order.
Axes normalize_axes(const Axes& axes, int ndim, std::string_view op);
// 0, 1, ..., ndim-1.
Axes all_axes(int ndim);

// numpy broadcasting of two shapes; throws DimensionError
// "op: shapes (3, 4) and (5,) cannot be broadcast".
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op);

// Prints (3, 4), (5,) and () like Python tuples.
std::ostream& operator<<(std::ostream& os, const Shape& shape);
std::ostream& operator<<(std::ostream& os, const Axes& axes);

}  // namespace rensa
