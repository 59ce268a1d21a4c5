#include "cuda/pinned.h"

#include <algorithm>
#include <bit>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <cuda_runtime.h>

#include "core/error.h"
#include "cuda/check.h"

namespace rensa::cuda {
namespace {

constexpr int64_t kMaxRequest = int64_t{1} << 60;

// The allocator's classes (cuda/allocator.cc): 512-byte granules below 1 MiB, then eight
// classes per power of two.
int64_t size_class(int64_t bytes) {
    constexpr int64_t kGranule = 512;
    if (bytes < (int64_t{1} << 20)) return std::max(kGranule, (bytes + kGranule - 1) / kGranule * kGranule);
    const int64_t step = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(bytes - 1)) / 8);
    return (bytes + step - 1) / step * step;
}

// The process-wide pool. Leaked deliberately: buffers may be returned during static
// destruction, and cudaFreeHost after the runtime unloaded crashes.
struct Pool {
    std::mutex mutex;
    std::unordered_map<int64_t, std::vector<void*>> free;  // by size class
    int64_t in_use = 0;
    int64_t cached = 0;

    void give_back(void* ptr, int64_t cls) {
        std::lock_guard lock{mutex};
        in_use -= cls;
        cached += cls;
        free[cls].push_back(ptr);
    }

    void release_cache() {  // mutex held
        for (auto& [cls, blocks] : free) {
            for (void* ptr : blocks) {
                if (cudaFreeHost(ptr) != cudaSuccess) (void)cudaGetLastError();
                cached -= cls;
            }
        }
        free.clear();
    }
};

Pool& pool() {
    static auto* instance = new Pool;
    return *instance;
}

void* host_alloc(int64_t cls) {
    void* ptr = nullptr;
    // Portable: usable with every device's copies, whichever device is current.
    const cudaError_t status = cls <= kMaxRequest ? cudaHostAlloc(&ptr, static_cast<size_t>(cls), cudaHostAllocPortable)
                                                  : cudaErrorMemoryAllocation;
    if (status == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return nullptr;
    }
    check_cuda(status, "cudaHostAlloc");
    return ptr;
}

}  // namespace

std::shared_ptr<void> pinned_buffer(int64_t bytes) {
    RENSA_CHECK(bytes >= 0, ValueError, "pinned_buffer: negative size ", bytes);
    const int64_t cls = bytes <= kMaxRequest ? size_class(bytes) : bytes;
    Pool& p = pool();
    void* ptr = nullptr;
    {
        std::lock_guard lock{p.mutex};
        auto it = p.free.find(cls);
        if (it != p.free.end() && !it->second.empty()) {
            ptr = it->second.back();
            it->second.pop_back();
            p.cached -= cls;
            p.in_use += cls;
        }
    }
    if (ptr == nullptr) {
        ptr = host_alloc(cls);
        if (ptr == nullptr) {  // give the cache back and try once more
            empty_pinned_cache();
            ptr = host_alloc(cls);
        }
        std::lock_guard lock{p.mutex};
        RENSA_CHECK(ptr != nullptr, OutOfMemoryError, "pinned host memory: out of memory allocating ", bytes,
                    " bytes (block of ", cls, " bytes; ", p.in_use, " bytes in use)");
        p.in_use += cls;
    }
    return std::shared_ptr<void>(ptr, [cls](void* q) { pool().give_back(q, cls); });
}

void empty_pinned_cache() {
    Pool& p = pool();
    std::lock_guard lock{p.mutex};
    p.release_cache();
}

int64_t pinned_bytes_in_use() {
    Pool& p = pool();
    std::lock_guard lock{p.mutex};
    return p.in_use;
}

int64_t pinned_bytes_cached() {
    Pool& p = pool();
    std::lock_guard lock{p.mutex};
    return p.cached;
}

}  // namespace rensa::cuda
