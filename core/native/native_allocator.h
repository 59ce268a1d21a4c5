#pragma once
// The native allocator: 64-byte aligned blocks with a free-list cache keyed by size
// class, so repeated shapes reuse memory without going back to the system.

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/storage.h"

namespace rensa::native {

inline constexpr int64_t kAlignment = 64;

// The size class a request of `bytes` is served from (at most 1/8 larger than asked).
int64_t size_class(int64_t bytes);

class NativeAllocator final : public Allocator, public std::enable_shared_from_this<NativeAllocator> {
public:
    // Freed blocks are cached up to `cache_limit` bytes; beyond that they go back to the system.
    explicit NativeAllocator(int64_t cache_limit);
    ~NativeAllocator() override;

    std::shared_ptr<Storage> allocate(int64_t bytes) override;
    void empty_cache() override;
    AllocatorStats stats() const override;

private:
    void* take_block(int64_t bytes, int64_t cls);
    void release(void* ptr, int64_t cls);

    mutable std::mutex mutex_;
    std::unordered_map<int64_t, std::vector<void*>> free_;
    AllocatorStats stats_;
    int64_t cache_limit_;
};

}  // namespace rensa::native
