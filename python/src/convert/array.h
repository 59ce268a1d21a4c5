#pragma once
// Arrays between Python and rensa (defined in python/src/convert/numpy.cc).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "autograd/variable.h"
#include "core/array.h"
#include "python/src/convert/variable_caster.h"

namespace rensa::python {
namespace py = pybind11;

// Anything array-like -> Array. A numpy array of one of rensa's dtypes is wrapped without a
// copy (the Array's storage keeps the numpy object alive; strides may be negative or zero);
// an ndarray is returned as is, a Variable gives its array; Python scalars, lists and other
// dtypes are converted (copy). DtypeError (TypeError) naming the Python type when obj is not
// array-like.
Array to_array(py::handle obj);
// None -> an undefined Array (Chainer's optional arrays: class_weight, running_mean, what
// non-root ranks pass to bcast/scatter), anything else to_array (no copy for numpy, so
// in-place updates reach the caller's array).
inline Array to_array_or_undefined(py::handle obj) { return obj.is_none() ? Array{} : to_array(obj); }
// A Python iterable of array-likes -> Arrays, each by to_array.
inline std::vector<Array> to_arrays(py::handle objs) {
    std::vector<Array> arrays;
    for (py::handle obj : objs) arrays.push_back(to_array(obj));
    return arrays;
}
// An Array on the native device -> a numpy array over the same memory (no copy; the numpy
// object keeps the storage alive). Other devices, and bfloat16 (numpy has none), give an
// ndarray instead. So var.array[...] = value writes into the Variable's array. None for an
// undefined Array.
py::object to_numpy(const Array& array);
// Arrays from C++ handed back to Python: None when undefined, else to_numpy.
inline py::object array_or_none(const Array& array) { return array.defined() ? to_numpy(array) : py::none(); }
// A Variable is returned as is (same handle); anything to_array takes becomes a new
// Variable with requires_grad=false (Chainer's treatment of raw arrays as inputs).
Variable to_variable(py::handle obj);

}  // namespace rensa::python
