#include "cuda/allocator.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

constexpr int64_t kSmallGranule = 512;
// One-byte atomics (scatter_add on bool, int8, uint8) compare-and-swap the aligned 32-bit
// word holding their byte, so the last word of a block is read and written whole.
constexpr int64_t kExactGranule = 4;
constexpr int64_t kSmallLimit = int64_t{1} << 20;
constexpr int64_t kMaxRequest = int64_t{1} << 60;  // beyond this no GPU has memory; avoids overflow below

}  // namespace

// The class a request is served from: 512-byte granules below 1 MiB, else one of eight
// classes per power of two (at most 1/8 larger than asked, like the native allocator);
// the bytes asked, rounded up to a 4-byte word, in the exact mode.
int64_t size_class(int64_t bytes, bool exact) {
    if (exact) return (bytes + kExactGranule - 1) / kExactGranule * kExactGranule;
    if (bytes < kSmallLimit)
        return std::max(kSmallGranule, (bytes + kSmallGranule - 1) / kSmallGranule * kSmallGranule);
    const int64_t step = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(bytes - 1)) / 8);
    return (bytes + step - 1) / step * step;
}

bool exact_alloc_from_env() {
    const char* value = std::getenv("RENSA_CUDA_EXACT_ALLOC");
    if (value == nullptr || *value == '\0') return false;
    const std::string text = value;
    RENSA_CHECK(text == "0" || text == "1", ValueError, "RENSA_CUDA_EXACT_ALLOC must be 0 or 1, got '", text, "'");
    return text == "1";
}

namespace {

// RENSA_CUDA_CACHE_LIMIT (bytes) bounds the cached bytes; unbounded by default.
int64_t cache_limit_from_env() {
    const char* value = std::getenv("RENSA_CUDA_CACHE_LIMIT");
    if (value == nullptr || *value == '\0') return std::numeric_limits<int64_t>::max();
    char* end = nullptr;
    const long long limit = std::strtoll(value, &end, 10);
    RENSA_CHECK(end != value && *end == '\0' && limit >= 0, ValueError,
                "RENSA_CUDA_CACHE_LIMIT must be a non-negative number of bytes, got '", value, "'");
    return limit;
}

struct Block {
    int64_t cls = 0;
    cudaStream_t stream = nullptr;      // the stream it was allocated on (its bin's)
    std::vector<cudaStream_t> used_on;  // other streams (record_stream)
};

// A freed block waiting for the work of other streams that used it.
struct Pending {
    void* ptr = nullptr;
    int64_t cls = 0;
    cudaStream_t stream = nullptr;
    std::vector<cudaEvent_t> events;
};

}  // namespace

struct CachingAllocator::Impl {
    Impl(int device_index, int64_t limit, bool exact_mode)
        : device{device_index}, cache_limit{exact_mode ? 0 : limit}, exact{exact_mode} {}

    int device;
    int64_t cache_limit;  // 0 in the exact mode: every freed block goes back to the driver
    bool exact;
    std::mutex mutex;
    std::map<std::pair<cudaStream_t, int64_t>, std::vector<void*>> bins;
    std::unordered_map<void*, Block> live;
    std::vector<Pending> pending;
    std::vector<cudaEvent_t> spare_events;
    AllocatorStats stats;

    // Every method below runs with `mutex` held and the device current.
    void poll_pending();
    void release_cache();
    void* malloc_block(int64_t bytes, int64_t cls);
    void release(void* ptr) noexcept;
    cudaEvent_t take_event();
};

void CachingAllocator::Impl::poll_pending() {
    auto done = [&](Pending& p) {
        for (cudaEvent_t event : p.events) {
            const cudaError_t status = cudaEventQuery(event);
            if (status == cudaErrorNotReady) {
                (void)cudaGetLastError();
                return false;
            }
            check_cuda(status, "cudaEventQuery");
        }
        return true;
    };
    for (size_t i = 0; i < pending.size();) {
        if (!done(pending[i])) {
            ++i;
            continue;
        }
        Pending p = std::move(pending[i]);
        pending[i] = std::move(pending.back());
        pending.pop_back();
        spare_events.insert(spare_events.end(), p.events.begin(), p.events.end());
        bins[{p.stream, p.cls}].push_back(p.ptr);
    }
}

// Note [Stream-ordered caching]: after a device synchronisation no stream uses any
// cached or pending block, so all of them go back to the driver. The bins are emptied
// before the first cudaFree, so a failure never leaves a freed pointer in a bin.
void CachingAllocator::Impl::release_cache() {
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    for (Pending& p : pending) {
        spare_events.insert(spare_events.end(), p.events.begin(), p.events.end());
        bins[{p.stream, p.cls}].push_back(p.ptr);
    }
    pending.clear();
    auto blocks = std::move(bins);
    bins.clear();
    cudaError_t first_error = cudaSuccess;
    for (auto& [key, ptrs] : blocks) {
        for (void* ptr : ptrs) {
            const cudaError_t status = cudaFree(ptr);
            if (status != cudaSuccess && first_error == cudaSuccess) first_error = status;
            stats.cached_bytes -= key.second;
        }
    }
    for (cudaEvent_t event : spare_events) (void)cudaEventDestroy(event);
    spare_events.clear();
    check_cuda(first_error, "cudaFree");
}

void* CachingAllocator::Impl::malloc_block(int64_t bytes, int64_t cls) {
    void* ptr = nullptr;
    cudaError_t status = cls <= kMaxRequest ? cudaMalloc(&ptr, static_cast<size_t>(cls)) : cudaErrorMemoryAllocation;
    if (status == cudaErrorMemoryAllocation) {  // give the cache back and try once more
        (void)cudaGetLastError();
        release_cache();
        status = cls <= kMaxRequest ? cudaMalloc(&ptr, static_cast<size_t>(cls)) : cudaErrorMemoryAllocation;
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            size_t free_bytes = 0, total_bytes = 0;
            if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) (void)cudaGetLastError();
            RENSA_THROW(OutOfMemoryError, "cuda:", device, ": out of memory allocating ", bytes, " bytes (block of ",
                        cls, " bytes; allocated ", stats.allocated_bytes, " bytes, cached ", stats.cached_bytes,
                        " bytes; device free ", free_bytes, " of ", total_bytes, " bytes)");
        }
    }
    check_cuda(status, "cudaMalloc");
    return ptr;
}

cudaEvent_t CachingAllocator::Impl::take_event() {
    if (!spare_events.empty()) {
        cudaEvent_t event = spare_events.back();
        spare_events.pop_back();
        return event;
    }
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return event;
}

// The storages' deleter: never throws. A block used on other streams waits in `pending`
// for events recorded on those streams now; if recording fails, the device is
// synchronised instead, which is always safe.
void CachingAllocator::Impl::release(void* ptr) noexcept {
    std::lock_guard lock{mutex};
    auto it = live.find(ptr);
    if (it == live.end()) return;  // not ours: cannot happen, never free what we do not own
    Block block = std::move(it->second);
    live.erase(it);
    stats.allocated_bytes -= block.cls;
    try {
        DeviceGuard guard{device};
        if (stats.cached_bytes + block.cls > cache_limit) {                // over the limit: back to the driver
            check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // no stream may still use it
            check_cuda(cudaFree(ptr), "cudaFree");
            return;
        }
        Pending p{ptr, block.cls, block.stream, {}};
        try {
            for (cudaStream_t stream : block.used_on) {
                p.events.push_back(take_event());
                check_cuda(cudaEventRecord(p.events.back(), stream), "cudaEventRecord");
            }
        } catch (const Error&) {
            (void)cudaDeviceSynchronize();
            (void)cudaGetLastError();
            spare_events.insert(spare_events.end(), p.events.begin(), p.events.end());
            p.events.clear();
        }
        if (p.events.empty()) {
            bins[{p.stream, p.cls}].push_back(ptr);
        } else {
            pending.push_back(std::move(p));
        }
        stats.cached_bytes += block.cls;
    } catch (...) {
        // The runtime is gone or broken (e.g. at exit): the block is left out of every bin.
        (void)cudaGetLastError();
    }
}

CachingAllocator::CachingAllocator(int device)
    : device_{device}, impl_{std::make_unique<Impl>(device, cache_limit_from_env(), exact_alloc_from_env())} {}

CachingAllocator::~CachingAllocator() {
    // Storages hold the allocator (shared_ptr), so none is live here. Cached blocks go back
    // to the driver; at process exit the runtime may be unloaded already, so errors are ignored.
    try {
        std::lock_guard lock{impl_->mutex};
        DeviceGuard guard{device_};
        impl_->release_cache();
    } catch (...) {
        (void)cudaGetLastError();
    }
}

std::shared_ptr<Storage> CachingAllocator::allocate(int64_t bytes) {
    RENSA_CHECK(bytes >= 0, ValueError, "cuda:", device_, ": negative allocation size ", bytes);
    const Device where = Device::cuda(device_);
    if (bytes == 0) {
        std::lock_guard lock{impl_->mutex};
        ++impl_->stats.num_allocs;
        return std::make_shared<Storage>(nullptr, 0, where, nullptr);
    }
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    const int64_t cls = bytes <= kMaxRequest ? size_class(bytes, impl_->exact) : bytes;
    void* ptr = nullptr;
    {
        std::lock_guard lock{impl_->mutex};
        Impl& impl = *impl_;
        impl.poll_pending();
        auto bin = impl.bins.find({stream, cls});
        if (bin != impl.bins.end() && !bin->second.empty()) {
            ptr = bin->second.back();
            bin->second.pop_back();
            ++impl.stats.num_cache_hits;
            impl.stats.cached_bytes -= cls;
        } else {
            ptr = impl.malloc_block(bytes, cls);
        }
        ++impl.stats.num_allocs;
        impl.stats.allocated_bytes += cls;
        impl.stats.peak_allocated_bytes = std::max(impl.stats.peak_allocated_bytes, impl.stats.allocated_bytes);
        impl.live[ptr] = Block{cls, stream, {}};
    }
    auto keep = shared_from_this();  // the allocator lives as long as any storage it made
    return std::make_shared<Storage>(ptr, bytes, where, [keep = std::move(keep)](void* p) { keep->impl_->release(p); });
}

void CachingAllocator::empty_cache() {
    std::lock_guard lock{impl_->mutex};
    DeviceGuard guard{device_};
    impl_->release_cache();
}

AllocatorStats CachingAllocator::stats() const {
    std::lock_guard lock{impl_->mutex};
    return impl_->stats;
}

void CachingAllocator::record_stream(const Storage& storage, cudaStream_t stream) {
    if (storage.data() == nullptr) return;  // zero bytes: nothing to protect
    std::lock_guard lock{impl_->mutex};
    auto it = impl_->live.find(storage.data());
    RENSA_CHECK(it != impl_->live.end(), ValueError, "record_stream: the storage was not allocated by cuda:", device_,
                "'s caching allocator");
    Block& block = it->second;
    if (stream == nullptr) stream = default_stream(device_);
    if (stream == block.stream) return;
    if (std::find(block.used_on.begin(), block.used_on.end(), stream) == block.used_on.end()) {
        block.used_on.push_back(stream);
    }
}

CachingAllocator& caching_allocator(int device) {
    Allocator& allocator = global_context().allocator(Device::cuda(device));
    auto* caching = dynamic_cast<CachingAllocator*>(&allocator);
    RENSA_CHECK(caching != nullptr, DeviceError, "cuda:", device,
                ": the installed allocator is not the CUDA caching allocator");
    return *caching;
}

}  // namespace rensa::cuda
