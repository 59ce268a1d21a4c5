#pragma once
// One numpy object per array view (defined in python/src/convert/numpy_cache.cc). See Note
// [One numpy object per array] there.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "core/array.h"

namespace rensa::python {
namespace py = pybind11;

// The numpy object last made by to_numpy or given to remember_numpy for the same view of
// `array` (data, dtype, shape, strides, writeability) while it lives, else a null object.
py::object cached_numpy(const Array& array);
// Makes to_numpy(array) return `obj` while it lives, when `obj` is a numpy array describing
// exactly `array`'s view (Variable(x).array is x); does nothing otherwise.
void remember_numpy(const Array& array, py::handle obj);

}  // namespace rensa::python
