#include "autograd/check.h"

#include "core/error.h"

namespace rensa {

void expect_defined(const Variable& x, std::string_view function, std::string_view argument) {
    RENSA_CHECK(x.defined(), ValueError, function, ": Expect: ", argument,
                " to be defined, Actual: undefined Variable");
}

void expect_float(const Variable& x, std::string_view function, std::string_view argument) {
    expect_defined(x, function, argument);
    RENSA_CHECK(is_float(x.dtype()), DtypeError, function, ": Expect: ", argument,
                ".dtype.kind == 'f', Actual: ", dtype_name(x.dtype()));
}

void expect_integer(const Variable& x, std::string_view function, std::string_view argument) {
    expect_defined(x, function, argument);
    RENSA_CHECK(is_integral(x.dtype()), DtypeError, function, ": Expect: ", argument,
                ".dtype.kind in 'iu', Actual: ", dtype_name(x.dtype()));
}

void expect_signed_integer(const Variable& x, std::string_view function, std::string_view argument) {
    expect_defined(x, function, argument);
    RENSA_CHECK(is_integral(x.dtype()) && is_signed(x.dtype()), DtypeError, function, ": Expect: ", argument,
                ".dtype.kind == 'i', Actual: ", dtype_name(x.dtype()));
}

void expect_dtype(const Variable& x, Dtype dtype, std::string_view function, std::string_view argument) {
    expect_defined(x, function, argument);
    RENSA_CHECK(x.dtype() == dtype, DtypeError, function, ": Expect: ", argument, ".dtype == ", dtype_name(dtype),
                ", Actual: ", dtype_name(x.dtype()));
}

void expect_same_dtype(const Variable& a, const Variable& b, std::string_view function, std::string_view a_name,
                       std::string_view b_name) {
    expect_defined(a, function, a_name);
    expect_defined(b, function, b_name);
    RENSA_CHECK(a.dtype() == b.dtype(), DtypeError, function, ": Expect: ", a_name, ".dtype == ", b_name,
                ".dtype, Actual: ", dtype_name(a.dtype()), " != ", dtype_name(b.dtype()));
}

void expect_same_float(const Variable& a, const Variable& b, std::string_view function, std::string_view a_name,
                       std::string_view b_name) {
    expect_float(a, function, a_name);
    expect_same_dtype(a, b, function, a_name, b_name);
}

void expect_ndim(const Variable& x, int ndim, std::string_view function, std::string_view argument) {
    expect_defined(x, function, argument);
    RENSA_CHECK(x.ndim() == ndim, DimensionError, function, ": Expect: ", argument, ".ndim == ", ndim,
                ", Actual: ", x.ndim());
}

void expect_shape(const Variable& x, const Shape& shape, std::string_view function, std::string_view argument) {
    expect_defined(x, function, argument);
    RENSA_CHECK(x.shape() == shape, DimensionError, function, ": Expect: ", argument, ".shape == ", shape,
                ", Actual: ", x.shape());
}

void expect_same_shape(const Variable& a, const Variable& b, std::string_view function, std::string_view a_name,
                       std::string_view b_name) {
    expect_defined(a, function, a_name);
    expect_defined(b, function, b_name);
    RENSA_CHECK(a.shape() == b.shape(), DimensionError, function, ": Expect: ", a_name, ".shape == ", b_name,
                ".shape, Actual: ", a.shape(), " != ", b.shape());
}

}  // namespace rensa
