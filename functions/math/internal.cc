#include "functions/math/internal.h"

#include <utility>

#include "core/dtype.h"

namespace rensa::functions::math_detail {

void check_float(std::string_view function, const Variable& x, std::string_view arg) {
    RENSA_CHECK(x.defined(), ValueError, function, ": ", arg, " is an undefined Variable");
    RENSA_CHECK(is_float(x.dtype()), DtypeError, function, ": Expect: ", arg,
                ".dtype.kind == 'f', Actual: ", dtype_name(x.dtype()));
}

void check_same_float(std::string_view function, const Variable& a, const Variable& b, std::string_view a_name,
                      std::string_view b_name) {
    check_float(function, a, a_name);
    check_float(function, b, b_name);
    RENSA_CHECK(a.dtype() == b.dtype(), DtypeError, function, ": Expect: ", a_name, ".dtype == ", b_name,
                ".dtype, Actual: ", dtype_name(a.dtype()), " != ", dtype_name(b.dtype()));
}

Shape kept_shape(const Shape& shape, const std::optional<Axes>& axes, std::string_view function) {
    Shape kept = shape;
    const int ndim = shape.size();
    for (int axis : axes ? normalize_axes(*axes, ndim, function) : all_axes(ndim)) kept[axis] = 1;
    return kept;
}

}  // namespace rensa::functions::math_detail
