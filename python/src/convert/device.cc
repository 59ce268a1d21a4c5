// Devices from Python (python/src/convert/device.h).
#include "python/src/convert/device.h"

#include <stdexcept>
#include <string>

#include "core/error.h"
#include "python/src/convert/device_object.h"

namespace rensa::python {

Device to_device(py::handle obj) {
    if (obj.is_none()) return default_device();
    if (py::isinstance<Device>(obj)) return obj.cast<Device>();
    if (py::isinstance<py::bool_>(obj)) RENSA_THROW(DeviceError, "device: True/False is not a device specifier");
    if (py::isinstance<py::int_>(obj)) {
        const auto id = obj.cast<int64_t>();
        if (id < 0) return Device::native();
        return Device::cuda(static_cast<int>(id));
    }
    // Device objects of rensa.backend carry the C++ device.
    if (py::hasattr(obj, "_rensa_device")) return to_device(obj.attr("_rensa_device"));
    RENSA_CHECK(py::isinstance<py::str>(obj), DeviceError, "device: ", py::repr(obj).cast<std::string>(),
                " is not a device specifier ('@numpy', 'native:0', '@cupy:0', 'cuda:0', -1, 0, ...)");
    const auto spec = obj.cast<std::string>();
    if (spec == "@numpy" || spec == "@intel64") return Device::native();
    if (spec.rfind("@cupy", 0) == 0) {
        if (spec == "@cupy") return Device::cuda(0);
        RENSA_CHECK(spec.size() > 6 && spec[5] == ':', DeviceError, "device: '", spec,
                    "' is not a device specifier (expected '@cupy:<id>')");
        try {
            return Device::cuda(std::stoi(spec.substr(6)));
        } catch (const std::logic_error&) {
            RENSA_THROW(DeviceError, "device: '", spec, "' is not a device specifier (expected '@cupy:<id>')");
        }
    }
    return Device::parse(spec);
}

py::object device_object(Device device) {
    static PyObject* from_core = nullptr;  // rensa.backend._from_core, kept for the process
    if (from_core == nullptr) {
        from_core = py::object(py::module_::import("rensa.backend").attr("_from_core")).release().ptr();
    }
    return py::reinterpret_borrow<py::object>(from_core)(device);
}

}  // namespace rensa::python
