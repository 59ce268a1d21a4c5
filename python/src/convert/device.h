#pragma once
// Devices from Python (defined in python/src/convert/device.cc).
#include <pybind11/pybind11.h>

#include <optional>

#include "core/device.h"

namespace rensa::python {
namespace py = pybind11;

// Chainer's device specifiers: '@numpy', 'native', 'native:0', '@cupy:0', 'cuda:0', -1
// (CPU), a non-negative int (that GPU), a Device, an object of rensa.backend carrying
// `_rensa_device`, None (the default device). DeviceError naming the specifier when unknown.
Device to_device(py::handle obj);
// None -> nullopt (Chainer's device=None: leave the arrays where they are), else to_device.
inline std::optional<Device> to_optional_device(py::handle obj) {
    if (obj.is_none()) return std::nullopt;
    return to_device(obj);
}
// Chainer's to_gpu(device=None): None is GPU 0, else to_device.
inline Device to_gpu_device(py::handle obj) { return obj.is_none() ? Device::cuda(0) : to_device(obj); }

}  // namespace rensa::python
