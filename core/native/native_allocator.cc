#include "core/native/native_allocator.h"

#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/device.h"
#include "core/error.h"

namespace rensa::native {

// Note [Native cache limit]: a freed block goes to the allocator's cache, never back to the
// system, while the cached bytes stay under the limit (kDefaultCacheLimit, 1 GiB, or
// RENSA_NATIVE_CACHE_LIMIT in bytes; set_cache_limit at run time); a block that would pass it
// is freed at once. So a training loop that frees what each iteration allocated takes every
// block of the next iteration from the cache (no page faults, no periodic release: blocks of
// 128 KiB and more would otherwise be mmap'd and unmapped by glibc on every step), and a
// program whose shapes change holds at most the limit in blocks it no longer uses. The cache
// is empty_cache'd and retried once when the system refuses a block. The limit was 4 GiB,
// which let a run hold 4 GiB of idle blocks; an MLP or CNN step at batch 100 frees far less
// than 1 GiB per iteration (issue 24).
//
// The cache is one mutex-guarded pool: uncontended, the lock costs less than the Storage the
// block goes into. Classes up to 4 KiB (the small arrays of a batch-1 step) index an array;
// larger ones a hash map. Every storage holds the pool by a raw pointer and a count of
// references (not a shared_ptr), so its deleter is 16 bytes and std::function keeps it without
// a heap allocation of its own.

namespace {
constexpr int64_t kSmallLimit = 4096;
constexpr size_t kSmallClasses = kSmallLimit / kAlignment;

int64_t checked_limit(int64_t limit) {
    RENSA_CHECK(limit >= 0, ValueError, "native allocator: Expect: cache_limit >= 0, Actual: ", limit);
    return limit;
}
}  // namespace

int64_t size_class(int64_t bytes) {
    if (bytes <= kSmallLimit) return std::max<int64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    // Eight classes per power of two: round up to a multiple of 1/8 of the enclosing power.
    const auto ubytes = static_cast<uint64_t>(bytes);
    const int64_t step = static_cast<int64_t>(std::bit_floor(ubytes - 1) / 8);
    return (bytes + step - 1) / step * step;
}

struct NativeAllocator::Pool {
    explicit Pool(int64_t limit) : cache_limit{limit} {}

    std::atomic<int64_t> refs{1};  // the allocator's and one per live storage
    mutable std::mutex mutex;
    std::array<std::vector<void*>, kSmallClasses> small;  // class (i + 1) * kAlignment
    std::unordered_map<int64_t, std::vector<void*>> large;
    AllocatorStats stats;
    int64_t cache_limit;

    void unref() {
        if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }
    std::vector<void*>& bin(int64_t cls) {
        if (cls <= kSmallLimit) return small[static_cast<size_t>(cls / kAlignment - 1)];
        return large[cls];
    }
    void* take(int64_t bytes, int64_t cls);
    void release(void* ptr, int64_t cls);
    void trim(int64_t limit);  // frees cached blocks until at most `limit` bytes are cached; caller locks
    ~Pool() { trim(0); }
};

void* NativeAllocator::Pool::take(int64_t bytes, int64_t cls) {
    {
        std::lock_guard lock{mutex};
        ++stats.num_allocs;
        std::vector<void*>& blocks = bin(cls);
        if (!blocks.empty()) {
            void* ptr = blocks.back();
            blocks.pop_back();
            ++stats.num_cache_hits;
            stats.cached_bytes -= cls;
            stats.allocated_bytes += cls;
            stats.peak_allocated_bytes = std::max(stats.peak_allocated_bytes, stats.allocated_bytes);
            return ptr;
        }
    }
    void* ptr = std::aligned_alloc(kAlignment, static_cast<size_t>(cls));
    std::lock_guard lock{mutex};
    if (ptr == nullptr) {  // give the cache back and try once more
        trim(0);
        ptr = std::aligned_alloc(kAlignment, static_cast<size_t>(cls));
    }
    RENSA_CHECK(ptr != nullptr, OutOfMemoryError, "native allocator: out of memory allocating ", bytes,
                " bytes (block of ", cls, " bytes; ", stats.allocated_bytes, " bytes in use)");
    stats.allocated_bytes += cls;
    stats.peak_allocated_bytes = std::max(stats.peak_allocated_bytes, stats.allocated_bytes);
    return ptr;
}

void NativeAllocator::Pool::release(void* ptr, int64_t cls) {
    {
        std::lock_guard lock{mutex};
        stats.allocated_bytes -= cls;
        if (stats.cached_bytes + cls <= cache_limit) {
            bin(cls).push_back(ptr);
            stats.cached_bytes += cls;
            ptr = nullptr;
        }
    }
    std::free(ptr);  // over the limit: back to the system, outside the lock
}

void NativeAllocator::Pool::trim(int64_t limit) {
    auto drain = [&](int64_t cls, std::vector<void*>& blocks) {
        while (stats.cached_bytes > limit && !blocks.empty()) {
            std::free(blocks.back());
            blocks.pop_back();
            stats.cached_bytes -= cls;
        }
    };
    // The largest blocks first: they are the most memory for the fewest reuses lost.
    for (auto& [cls, blocks] : large) drain(cls, blocks);
    for (size_t i = small.size(); i-- > 0;) drain(static_cast<int64_t>(i + 1) * kAlignment, small[i]);
    if (limit == 0) large.clear();
}

// A storage's deleter: gives the block back to the pool and drops the storage's reference on it.
struct NativeAllocator::BlockReturn {
    Pool* pool;
    int64_t cls;
    void operator()(void* ptr) const {
        pool->release(ptr, cls);
        pool->unref();
    }
};

NativeAllocator::NativeAllocator(int64_t cache_limit) : pool_{new Pool(checked_limit(cache_limit))} {}

NativeAllocator::~NativeAllocator() {
    set_cache_limit(0);  // later frees go straight back to the system
    pool_->unref();
}

std::shared_ptr<Storage> NativeAllocator::allocate(int64_t bytes) {
    RENSA_CHECK(bytes >= 0, ValueError, "native allocator: negative size ", bytes);
    const int64_t cls = size_class(bytes);
    void* ptr = pool_->take(bytes, cls);
    // std::function keeps a functor this small and trivially copyable without a heap allocation.
    static_assert(sizeof(BlockReturn) <= 16 && std::is_trivially_copyable_v<BlockReturn>);
    pool_->refs.fetch_add(1, std::memory_order_relaxed);
    try {
        return std::make_shared<Storage>(ptr, bytes, Device::native(), BlockReturn{pool_, cls});
    } catch (...) {
        BlockReturn{pool_, cls}(ptr);
        throw;
    }
}

void NativeAllocator::empty_cache() {
    std::lock_guard lock{pool_->mutex};
    pool_->trim(0);
}

AllocatorStats NativeAllocator::stats() const {
    std::lock_guard lock{pool_->mutex};
    return pool_->stats;
}

int64_t NativeAllocator::cache_limit() const {
    std::lock_guard lock{pool_->mutex};
    return pool_->cache_limit;
}

void NativeAllocator::set_cache_limit(int64_t bytes) {
    RENSA_CHECK(bytes >= 0, ValueError, "native allocator: set_cache_limit: Expect: bytes >= 0, Actual: ", bytes);
    std::lock_guard lock{pool_->mutex};
    pool_->cache_limit = bytes;
    pool_->trim(bytes);
}

}  // namespace rensa::native
