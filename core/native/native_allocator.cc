#include "core/native/native_allocator.h"

#include <bit>
#include <cstdlib>

#include "core/device.h"
#include "core/error.h"

namespace rensa::native {

int64_t size_class(int64_t bytes) {
    if (bytes <= 4096) return std::max<int64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    // Eight classes per power of two: round up to a multiple of 1/8 of the enclosing power.
    const auto ubytes = static_cast<uint64_t>(bytes);
    const int64_t step = static_cast<int64_t>(std::bit_floor(ubytes - 1) / 8);
    return (bytes + step - 1) / step * step;
}

NativeAllocator::NativeAllocator(int64_t cache_limit) : cache_limit_{cache_limit} {}

NativeAllocator::~NativeAllocator() { empty_cache(); }

std::shared_ptr<Storage> NativeAllocator::allocate(int64_t bytes) {
    RENSA_CHECK(bytes >= 0, ValueError, "native allocator: negative size ", bytes);
    const int64_t cls = size_class(bytes);
    void* ptr = take_block(bytes, cls);
    auto keep = shared_from_this();  // the allocator lives as long as any storage it made
    return std::make_shared<Storage>(ptr, bytes, Device::native(),
                                     [keep = std::move(keep), cls](void* p) { keep->release(p, cls); });
}

void* NativeAllocator::take_block(int64_t bytes, int64_t cls) {
    {
        std::lock_guard lock{mutex_};
        ++stats_.num_allocs;
        auto it = free_.find(cls);
        if (it != free_.end() && !it->second.empty()) {
            void* ptr = it->second.back();
            it->second.pop_back();
            ++stats_.num_cache_hits;
            stats_.cached_bytes -= cls;
            stats_.allocated_bytes += cls;
            stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
            return ptr;
        }
    }
    void* ptr = std::aligned_alloc(kAlignment, static_cast<size_t>(cls));
    if (ptr == nullptr) {  // give the cache back and try once more
        empty_cache();
        ptr = std::aligned_alloc(kAlignment, static_cast<size_t>(cls));
    }
    std::lock_guard lock{mutex_};
    RENSA_CHECK(ptr != nullptr, OutOfMemoryError, "native allocator: out of memory allocating ", bytes,
                " bytes (block of ", cls, " bytes; ", stats_.allocated_bytes, " bytes in use)");
    stats_.allocated_bytes += cls;
    stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
    return ptr;
}

void NativeAllocator::release(void* ptr, int64_t cls) {
    std::lock_guard lock{mutex_};
    stats_.allocated_bytes -= cls;
    if (stats_.cached_bytes + cls > cache_limit_) {
        std::free(ptr);
        return;
    }
    free_[cls].push_back(ptr);
    stats_.cached_bytes += cls;
}

void NativeAllocator::empty_cache() {
    std::lock_guard lock{mutex_};
    for (auto& [cls, blocks] : free_) {
        for (void* p : blocks) std::free(p);
    }
    free_.clear();
    stats_.cached_bytes = 0;
}

AllocatorStats NativeAllocator::stats() const {
    std::lock_guard lock{mutex_};
    return stats_;
}

}  // namespace rensa::native
