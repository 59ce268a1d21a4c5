#include "core/device.h"

#include <charconv>

#include "core/error.h"

namespace rensa {
namespace {
thread_local Device t_default_device = Device::native();
}

Device Device::parse(std::string_view spec) {
    const size_t colon = spec.find(':');
    const std::string_view kind = spec.substr(0, colon);
    int index = 0;
    if (colon != std::string_view::npos) {
        const std::string_view digits = spec.substr(colon + 1);
        const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
        RENSA_CHECK(ec == std::errc{} && ptr == digits.data() + digits.size() && index >= 0, DeviceError,
                    "device: bad index in '", spec, "'; expected e.g. 'native:0' or 'cuda:1'");
    }
    if (kind == "native") return {DeviceKind::kNative, index};
    if (kind == "cuda") return {DeviceKind::kCuda, index};
    RENSA_THROW(DeviceError, "device: unknown device '", spec, "'; expected 'native[:N]' or 'cuda[:N]'");
}

std::string Device::str() const { return detail::concat(device_kind_name(kind), ':', index); }

std::string_view device_kind_name(DeviceKind kind) {
    switch (kind) {
        case DeviceKind::kNative:
            return "native";
        case DeviceKind::kCuda:
            return "cuda";
    }
    return "?";
}

std::ostream& operator<<(std::ostream& os, const Device& device) { return os << device.str(); }

Device default_device() { return t_default_device; }

DeviceScope::DeviceScope(Device device) : previous_{t_default_device} { t_default_device = device; }
DeviceScope::~DeviceScope() { t_default_device = previous_; }

}  // namespace rensa
