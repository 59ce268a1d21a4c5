#include "core/backend.h"

#include "core/error.h"
#include "core/native/native_backend.h"

namespace rensa {

void Context::install_backend(std::unique_ptr<Backend> backend) {
    RENSA_ASSERT(backend != nullptr);
    const auto slot = static_cast<size_t>(backend->kind());
    if (backends_.size() <= slot) backends_.resize(slot + 1);
    backends_[slot] = std::move(backend);
}

bool Context::has_backend(DeviceKind kind) const {
    const auto slot = static_cast<size_t>(kind);
    return slot < backends_.size() && backends_[slot] != nullptr;
}

Backend& Context::backend(DeviceKind kind) const {
    RENSA_CHECK(has_backend(kind), DeviceError, "no '", device_kind_name(kind),
                "' backend is installed (was rensa built with it, and is the device present?)");
    return *backends_[static_cast<size_t>(kind)];
}

Backend& Context::backend(Device device) const {
    Backend& b = backend(device.kind);
    RENSA_CHECK(device.index >= 0 && device.index < b.device_count(), DeviceError, "device ", device,
                " does not exist: the ", device_kind_name(device.kind), " backend has ", b.device_count(),
                " device(s)");
    return b;
}

Context& global_context() {
    // Storages outliving this at exit are safe: they keep their allocator alive.
    static Context context = [] {
        Context c;
        c.install_backend(native::make_native_backend());
        return c;
    }();
    return context;
}

}  // namespace rensa
