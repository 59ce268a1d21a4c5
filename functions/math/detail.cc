#include "functions/math/detail.h"

#include <utility>

#include "core/dtype.h"

namespace rensa::functions::math_detail {

Shape kept_shape(const Shape& shape, const std::optional<Axes>& axes, std::string_view function) {
    Shape kept = shape;
    const int ndim = shape.size();
    for (int axis : axes ? normalize_axes(*axes, ndim, function) : all_axes(ndim)) kept[axis] = 1;
    return kept;
}

}  // namespace rensa::functions::math_detail
