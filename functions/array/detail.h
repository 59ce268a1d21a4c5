#pragma once
// Building blocks the array functions share (private to functions/array): a differentiable
// gather along an axis and its scatter-add backward, differentiable basic indexing and its
// backward, and constant zeros for missing output gradients.

#include <string_view>
#include <vector>

#include "autograd/variable.h"
#include "core/array.h"
#include "functions/array.h"

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

// True for the modes numpy.pad knows by name.
[[nodiscard]] bool is_pad_mode(std::string_view mode);
// ValueError for a keyword numpy.pad does not take in `mode`, or a bad reflect_type.
void check_pad_keywords(std::string_view mode, const PadOptions& options);
// numpy.pad(x, widths, mode, **options) (one pair per axis); ValueError for a keyword the mode
// does not take, an empty axis in a mode that reads values, or a stat_length of 0.
[[nodiscard]] Array pad_array(const Array& x, const std::vector<std::pair<int64_t, int64_t>>& widths,
                              std::string_view mode, const PadOptions& options);

// A constant (not requiring grad) Variable of zeros.
[[nodiscard]] Variable zeros(const Shape& shape, Dtype dtype, Device device);
// gy itself, or constant zeros of the given shape/dtype/device when gy is undefined.
[[nodiscard]] Variable or_zeros(const Variable& gy, const Shape& shape, Dtype dtype, Device device);

// Throws ValueError when xs is empty or holds an undefined Variable, DtypeError when the
// dtypes differ (autograd/check.h's messages).
void check_nonempty_same_dtype(std::string_view op, const std::vector<Variable>& xs);

}  // namespace rensa::functions::array_detail
