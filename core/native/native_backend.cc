#include "core/native/native_backend.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/native/native_allocator.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

// RENSA_NATIVE_CACHE_LIMIT (bytes) bounds the free-list cache; default kDefaultCacheLimit (1 GiB).
// See Note [Native cache limit] in core/native/native_allocator.cc.
int64_t cache_limit_from_env() {
    const char* value = std::getenv("RENSA_NATIVE_CACHE_LIMIT");
    if (value == nullptr || *value == '\0') return kDefaultCacheLimit;
    char* end = nullptr;
    const long long limit = std::strtoll(value, &end, 10);
    RENSA_CHECK(end != value && *end == '\0' && limit >= 0, ValueError,
                "RENSA_NATIVE_CACHE_LIMIT must be a non-negative number of bytes, got '", value, "'");
    return limit;
}

class NativeBackend final : public Backend {
public:
    NativeBackend() : allocator_{std::make_shared<NativeAllocator>(cache_limit_from_env())} {}

    DeviceKind kind() const override { return DeviceKind::kNative; }
    int device_count() const override { return 1; }
    Allocator& allocator(int) override { return *allocator_; }
    Kernels& kernels(int) override { return kernels_; }
    void copy_to_host(int, void* host_dst, const void* src, int64_t bytes) override {
        std::memcpy(host_dst, src, static_cast<size_t>(bytes));
    }
    void copy_from_host(int, void* dst, const void* host_src, int64_t bytes) override {
        std::memcpy(dst, host_src, static_cast<size_t>(bytes));
    }
    void copy_between(int, const void* src, int, void* dst, int64_t bytes) override {
        std::memcpy(dst, src, static_cast<size_t>(bytes));
    }
    void synchronize(int) override {}

private:
    std::shared_ptr<NativeAllocator> allocator_;
    NativeKernels kernels_;
};

}  // namespace

std::unique_ptr<Backend> make_native_backend() { return std::make_unique<NativeBackend>(); }

}  // namespace rensa::native
