#pragma once
// Device objects for Python (defined in python/src/convert/device.cc).
#include <pybind11/pybind11.h>

#include "core/device.h"

namespace rensa::python {
namespace py = pybind11;

// The Python device object of `device` (rensa.backend.CpuDevice for native, GpuDevice for
// cuda:N): what Chainer's Variable.device, Link.device and converters give. See Note [Device
// objects] in python/rensa/_backend.py.
py::object device_object(Device device);

}  // namespace rensa::python
