#pragma once
// Building blocks the array functions share (private to functions/array): a differentiable
// gather along an axis and its scatter-add backward, differentiable basic indexing and its
// backward, and constant zeros for missing output gradients.

#include <string_view>
#include <vector>

#include "autograd/variable.h"
#include "core/array.h"

namespace rensa::functions::array_detail {

// x gathered along `axis` at `indices` (int64, already in [0, x.shape[axis])): numpy.take.
// Its backward is scatter_along; scatter_along's backward is take_along.
[[nodiscard]] Variable take_along(const Variable& x, const Array& indices, int axis);
// zeros(shape) with gy scatter-added at `indices` along `axis` (repeats accumulate).
[[nodiscard]] Variable scatter_along(const Variable& gy, const Array& indices, int axis, const Shape& shape);
// x.index(index) (basic indexing: a view); its backward writes gy into zeros of x's shape.
[[nodiscard]] Variable basic_index(const Variable& x, const std::vector<Index>& index);
// zeros(shape) with gy written into its view .index(index): basic_index's backward (and
// scatter_add's building block); its backward is basic_index.
[[nodiscard]] Variable basic_index_grad(const Variable& gy, const std::vector<Index>& index, const Shape& shape);

// A constant (not requiring grad) Variable of zeros.
[[nodiscard]] Variable zeros(const Shape& shape, Dtype dtype, Device device);
// gy itself, or constant zeros of the given shape/dtype/device when gy is undefined.
[[nodiscard]] Variable or_zeros(const Variable& gy, const Shape& shape, Dtype dtype, Device device);

// Throws ValueError when xs is empty or holds an undefined Variable, DtypeError when the
// dtypes differ (autograd/check.h's messages).
void check_nonempty_same_dtype(std::string_view op, const std::vector<Variable>& xs);

}  // namespace rensa::functions::array_detail
