#pragma once
// Backend: one per device kind (native, cuda), owning each device's allocator and
// kernels and moving bytes between host and device. Installed into a Context.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/device.h"
#include "core/kernels.h"
#include "core/storage.h"

namespace rensa {

class Backend {
public:
    virtual ~Backend() = default;
    virtual DeviceKind kind() const = 0;
    virtual int device_count() const = 0;
    virtual Allocator& allocator(int index) = 0;
    virtual Kernels& kernels(int index) = 0;
    // Byte copies between host memory and device `index` (or two devices of this kind).
    // They return when the bytes are usable by the host / by later kernels.
    virtual void copy_to_host(int index, void* host_dst, const void* src, int64_t bytes) = 0;
    virtual void copy_from_host(int index, void* dst, const void* host_src, int64_t bytes) = 0;
    virtual void copy_between(int src_index, const void* src, int dst_index, void* dst, int64_t bytes) = 0;
    virtual void synchronize(int index) = 0;
};

// Context: the installed backends, one per kind, by explicit calls (no static registrars).
class Context {
public:
    // Installs (or replaces) the backend of its kind.
    void install_backend(std::unique_ptr<Backend> backend);
    bool has_backend(DeviceKind kind) const;
    // Throws DeviceError when no backend of that kind is installed.
    Backend& backend(DeviceKind kind) const;
    // Throws DeviceError when the device's index is out of range.
    Backend& backend(Device device) const;
    Kernels& kernels(Device device) const { return backend(device).kernels(device.index); }
    Allocator& allocator(Device device) const { return backend(device).allocator(device.index); }

private:
    std::vector<std::unique_ptr<Backend>> backends_;
};

// The process-wide context, made on first use with the native backend installed.
Context& global_context();

}  // namespace rensa
