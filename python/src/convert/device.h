#pragma once
// Devices from Python (defined in python/src/convert/device.cc).
#include <pybind11/pybind11.h>

#include "core/device.h"

namespace rensa::python {
namespace py = pybind11;

// Chainer's device specifiers: '@numpy', 'native', 'native:0', '@cupy:0', 'cuda:0', -1
// (CPU), a non-negative int (that GPU), a Device, an object of rensa.backend carrying
// `_rensa_device`, None (the default device). DeviceError naming the specifier when unknown.
Device to_device(py::handle obj);

}  // namespace rensa::python
