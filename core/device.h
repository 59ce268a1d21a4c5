#pragma once
// Device: a small value {kind, index} printed as `native:0` or `cuda:1`, and the
// thread-local default device with its RAII scope.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace rensa {

enum class DeviceKind : uint8_t { kNative, kCuda };

struct Device {
    DeviceKind kind = DeviceKind::kNative;
    int index = 0;

    static constexpr Device native() { return {DeviceKind::kNative, 0}; }
    static constexpr Device cuda(int index) { return {DeviceKind::kCuda, index}; }
    // Parses "native", "native:0", "cuda", "cuda:1"; throws DeviceError otherwise.
    static Device parse(std::string_view spec);

    std::string str() const;
    friend bool operator==(const Device&, const Device&) = default;
};

std::string_view device_kind_name(DeviceKind kind);
std::ostream& operator<<(std::ostream& os, const Device& device);

// The device new arrays go to when none is given (native:0 unless a scope says otherwise).
Device default_device();

// Sets the calling thread's default device for its lifetime, restoring the previous one.
class DeviceScope {
public:
    explicit DeviceScope(Device device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    Device previous_;
};

}  // namespace rensa
