#pragma once
// Dtypes between Python and rensa (defined in python/src/convert/numpy.cc).
#include <pybind11/pybind11.h>

#include "core/dtype.h"

namespace rensa::python {
namespace py = pybind11;

// numpy dtype, numpy scalar type (numpy.float32), Python type (float, int, bool) or name
// ('float32', 'f', 'bfloat16') -> Dtype; DtypeError naming the value otherwise.
Dtype to_dtype(py::handle obj);
// The numpy dtype for `dtype` (bfloat16: the string 'bfloat16').
py::object dtype_to_python(Dtype dtype);

}  // namespace rensa::python
