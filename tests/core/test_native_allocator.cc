// The native allocator's cache (Note [Native cache limit] in core/native/native_allocator.cc):
// freed blocks are reused, the cached bytes never pass the limit, and storages may outlive
// the allocator.

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.h"
#include "core/native/native_allocator.h"

namespace {

using namespace rensa;
using Catch::Matchers::Contains;
using native::NativeAllocator;

constexpr int64_t kMiB = int64_t{1} << 20;

TEST_CASE("native allocator: size classes", "[native_allocator]") {
    CHECK(native::size_class(0) == 64);
    CHECK(native::size_class(1) == 64);
    CHECK(native::size_class(65) == 128);
    CHECK(native::size_class(4096) == 4096);
    CHECK(native::size_class(4097) == 4096 + 512);
    CHECK(native::size_class(kMiB) == kMiB);
    CHECK(native::size_class(kMiB + 1) == kMiB + kMiB / 8);
}

TEST_CASE("native allocator: a freed block is reused for the same class", "[native_allocator]") {
    NativeAllocator allocator{kMiB};
    for (const int64_t bytes : {int64_t{40}, int64_t{4000}, int64_t{300000}}) {
        allocator.empty_cache();  // the previous round's block
        void* first = nullptr;
        {
            auto storage = allocator.allocate(bytes);
            first = storage->data();
            CHECK(reinterpret_cast<uintptr_t>(first) % native::kAlignment == 0);
        }
        const AllocatorStats freed = allocator.stats();
        CHECK(freed.cached_bytes == native::size_class(bytes));
        CHECK(freed.allocated_bytes == 0);
        auto again = allocator.allocate(bytes - 1);  // same class
        CHECK(again->data() == first);
        CHECK(allocator.stats().cached_bytes == 0);
        CHECK(allocator.stats().num_cache_hits == freed.num_cache_hits + 1);
    }
}

TEST_CASE("native allocator: the cached bytes stay under the limit", "[native_allocator]") {
    NativeAllocator allocator{kMiB};
    CHECK(allocator.cache_limit() == kMiB);
    std::vector<std::shared_ptr<Storage>> live;
    for (int i = 0; i < 40; ++i) live.push_back(allocator.allocate(100000 + 1000 * i));  // ~5 MiB, many classes
    const int64_t held = allocator.stats().allocated_bytes;
    CHECK(held > 4 * kMiB);
    live.clear();
    const AllocatorStats stats = allocator.stats();
    CHECK(stats.allocated_bytes == 0);
    CHECK(stats.cached_bytes <= kMiB);
    CHECK(stats.cached_bytes > kMiB / 2);  // the cache is used up to the limit, not emptied
    CHECK(stats.peak_allocated_bytes == held);

    allocator.set_cache_limit(200000);
    CHECK(allocator.stats().cached_bytes <= 200000);
    allocator.empty_cache();
    CHECK(allocator.stats().cached_bytes == 0);
    CHECK_THROWS_WITH(allocator.set_cache_limit(-1), Contains("set_cache_limit: Expect: bytes >= 0, Actual: -1"));
    CHECK_THROWS_AS(NativeAllocator{-5}, ValueError);
}

TEST_CASE("native allocator: a zero limit caches nothing", "[native_allocator]") {
    NativeAllocator allocator{0};
    { auto storage = allocator.allocate(1000); }
    CHECK(allocator.stats().cached_bytes == 0);
    CHECK(allocator.stats().num_allocs == 1);
}

TEST_CASE("native allocator: storages outlive their allocator", "[native_allocator]") {
    std::shared_ptr<Storage> kept;
    {
        auto allocator = std::make_shared<NativeAllocator>(kMiB);
        kept = allocator->allocate(5000);
        auto cached = allocator->allocate(6000);
    }
    // The pool is freed with the last storage (AddressSanitizer checks the block and the pool).
    static_cast<char*>(kept->data())[4999] = 1;
    kept.reset();
}

}  // namespace
