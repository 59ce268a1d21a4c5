#pragma once
// The input checks of differentiable functions (autograd's arithmetic and every F::
// function): one helper per kind of check, one message style.
//
// Note [Input check messages]: every message reads
//   "<function>: Expect: <what was expected>, Actual: <what was given>"
// naming the argument as the function's Python signature does, e.g.
//   "relu: Expect: x.dtype.kind == 'f', Actual: int32"
//   "squared_error: Expect: x0.shape == x1.shape, Actual: (2, 3) != (3, 2)"
//   "linear: Expect: W to be defined, Actual: undefined Variable"
// Checks that only one function needs are written in place with RENSA_CHECK in the same
// style. An undefined Variable is a ValueError, a wrong dtype a DtypeError, a wrong rank
// or shape a DimensionError. The dtype and shape checks also reject undefined inputs.

#include <string_view>

#include "autograd/variable.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace rensa {

// ValueError "<function>: Expect: <argument> to be defined, Actual: undefined Variable".
void expect_defined(const Variable& x, std::string_view function, std::string_view argument);

// DtypeError unless x holds floating-point data ("<argument>.dtype.kind == 'f'").
void expect_float(const Variable& x, std::string_view function, std::string_view argument);
// DtypeError unless x holds integers, signed or not ("<argument>.dtype.kind in 'iu'").
void expect_integer(const Variable& x, std::string_view function, std::string_view argument);
// DtypeError unless x holds signed integers ("<argument>.dtype.kind == 'i'"), Chainer's
// check of class labels.
void expect_signed_integer(const Variable& x, std::string_view function, std::string_view argument);
// DtypeError unless x.dtype == dtype ("<argument>.dtype == bool").
void expect_dtype(const Variable& x, Dtype dtype, std::string_view function, std::string_view argument);
// DtypeError unless a and b share one dtype ("a.dtype == b.dtype, Actual: float32 != float64").
void expect_same_dtype(const Variable& a, const Variable& b, std::string_view function, std::string_view a_name,
                       std::string_view b_name);
// expect_float on a, then expect_same_dtype(a, b): two floating-point operands of one dtype.
void expect_same_float(const Variable& a, const Variable& b, std::string_view function, std::string_view a_name,
                       std::string_view b_name);

// DimensionError unless x.ndim == ndim ("<argument>.ndim == 4, Actual: 3").
void expect_ndim(const Variable& x, int ndim, std::string_view function, std::string_view argument);
// DimensionError unless x.shape == shape ("<argument>.shape == (3,), Actual: (2,)").
void expect_shape(const Variable& x, const Shape& shape, std::string_view function, std::string_view argument);
// DimensionError unless a and b share one shape ("a.shape == b.shape, Actual: (2,) != (3,)").
void expect_same_shape(const Variable& a, const Variable& b, std::string_view function, std::string_view a_name,
                       std::string_view b_name);

}  // namespace rensa
