#pragma once
// The native allocator: 64-byte aligned blocks with a free-list cache keyed by size class,
// so repeated shapes reuse memory without going back to the system. See Note [Native cache
// limit] in core/native/native_allocator.cc.

#include <cstdint>
#include <memory>

#include "core/storage.h"

namespace rensa::native {

inline constexpr int64_t kAlignment = 64;
// The default cap on the bytes of freed blocks kept for reuse (RENSA_NATIVE_CACHE_LIMIT overrides it).
inline constexpr int64_t kDefaultCacheLimit = int64_t{1} << 30;

// The size class a request of `bytes` is served from (at most 1/8 larger than asked).
int64_t size_class(int64_t bytes);

class NativeAllocator final : public Allocator {
public:
    // Freed blocks are cached up to `cache_limit` bytes; beyond that they go back to the system.
    explicit NativeAllocator(int64_t cache_limit);
    // Storages it made may outlive it: their blocks then go back to the system when freed.
    ~NativeAllocator() override;
    NativeAllocator(const NativeAllocator&) = delete;
    NativeAllocator& operator=(const NativeAllocator&) = delete;

    std::shared_ptr<Storage> allocate(int64_t bytes) override;
    void empty_cache() override;
    AllocatorStats stats() const override;

    int64_t cache_limit() const;
    // Sets the cap and frees cached blocks until the cache fits it; ValueError when negative.
    void set_cache_limit(int64_t bytes);

private:
    struct Pool;         // the cache and its statistics, shared by the allocator and every storage it made
    struct BlockReturn;  // the deleter of the storages it makes
    Pool* pool_;
};

}  // namespace rensa::native
