// The caching allocator of cuda:0 (Note [Stream-ordered caching] in cuda/allocator.h):
// reuse on the same stream without synchronisation, record_stream, empty_cache, out of
// memory, a churn of thousands of blocks on two streams checking data and statistics, and
// blocks cached on a destroyed cuda::Stream (Note [Stream pool] in cuda/stream.h).
#include <cuda_runtime.h>
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/stream.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

using Catch::Matchers::Contains;

// Holds a stream's queue (a host function spinning until opened, 30 s at most), so that
// work "still running" on it can be staged deterministically.
std::atomic<bool> g_gate_open{false};

void CUDART_CB wait_for_gate(void*) {
    const auto start = std::chrono::steady_clock::now();
    while (!g_gate_open.load() && std::chrono::steady_clock::now() - start < std::chrono::seconds{30}) {
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
}

void block_stream(cudaStream_t stream) {
    g_gate_open.store(false);
    REQUIRE(cudaLaunchHostFunc(stream, wait_for_gate, nullptr) == cudaSuccess);
}

}  // namespace

// The tests of caching itself: under RENSA_CUDA_EXACT_ALLOC=1 (gpu-check.sh's memcheck pass)
// the allocator caches nothing, so they report a skip.
#define RENSA_REQUIRE_CACHING()                                                                                     \
    do {                                                                                                            \
        RENSA_REQUIRE_CUDA();                                                                                       \
        if (cuda::exact_alloc_from_env()) {                                                                         \
            std::cout << "RENSA_SKIPPED: a caching test, and RENSA_CUDA_EXACT_ALLOC=1 caches nothing" << std::endl; \
            return;                                                                                                 \
        }                                                                                                           \
    } while (false)

TEST_CASE("cuda: allocator reuses a block on the same stream without synchronising", "[cuda]") {
    RENSA_REQUIRE_CACHING();
    cuda::CachingAllocator& allocator = cuda::caching_allocator(0);
    void* first = nullptr;
    {
        auto storage = allocator.allocate(5000);
        REQUIRE(storage->data() != nullptr);
        CHECK(storage->bytes() == 5000);
        CHECK(storage->device() == Device::cuda(0));
        REQUIRE(cudaMemsetAsync(storage->data(), 7, 5000, cuda::current_stream(0)) == cudaSuccess);
        first = storage->data();
    }
    const AllocatorStats before = allocator.stats();
    {
        auto again = allocator.allocate(4700);  // the same size class (5120 bytes)
        CHECK(again->data() == first);
        const AllocatorStats after = allocator.stats();
        CHECK(after.num_allocs == before.num_allocs + 1);
        CHECK(after.num_cache_hits == before.num_cache_hits + 1);
        CHECK(after.cached_bytes == before.cached_bytes - 5120);
        CHECK(after.allocated_bytes == before.allocated_bytes + 5120);
    }
    // Another stream never gets a block freed on the default stream.
    cuda::Stream side{0};
    {
        cuda::StreamScope scope{0, side.get()};
        auto other = allocator.allocate(5000);
        CHECK(other->data() != first);
    }
    side.synchronize();
}

TEST_CASE("cuda: allocator waits for record_stream'ed work before reusing a block", "[cuda]") {
    RENSA_REQUIRE_CACHING();
    cuda::CachingAllocator& allocator = cuda::caching_allocator(0);
    cuda::Stream side{0};
    block_stream(side.get());  // work queued on `side` stays "running" until the gate opens
    void* used = nullptr;
    {
        auto storage = allocator.allocate(3000);
        used = storage->data();
        allocator.record_stream(*storage, side.get());
    }
    {
        auto meanwhile = allocator.allocate(3000);
        CHECK(meanwhile->data() != used);  // `side` may still use the first block
    }
    g_gate_open.store(true);
    side.synchronize();
    auto later = allocator.allocate(3000);  // the event completed: the block is back in its bin
    CHECK(later->data() == used);
}

TEST_CASE("cuda: a block cached on a destroyed Stream is reused in stream order by the next Stream", "[cuda]") {
    RENSA_REQUIRE_CACHING();
    cuda::CachingAllocator& allocator = cuda::caching_allocator(0);
    constexpr size_t kBytes = 70000;
    cudaStream_t old_handle = nullptr;
    void* freed = nullptr;
    std::shared_ptr<Storage> kept;
    {
        cuda::Stream old_stream{0};
        old_handle = old_stream.get();
        block_stream(old_handle);  // work queued on it stays pending until the gate opens
        cuda::StreamScope scope{0, old_handle};
        kept = allocator.allocate(kBytes);
        auto storage = allocator.allocate(kBytes);
        freed = storage->data();
        REQUIRE(cudaMemsetAsync(storage->data(), 1, kBytes, old_handle) == cudaSuccess);
        REQUIRE(cudaMemsetAsync(kept->data(), 3, kBytes, old_handle) == cudaSuccess);
    }  // `storage` goes to old_handle's bin, then the Stream is destroyed, its memsets still pending
    cuda::Stream next{0};
    CHECK(next.get() == old_handle);  // the same stream, from the pool (Note [Stream pool])
    std::vector<unsigned char> reused(kBytes, 0), still_kept(kBytes, 0);
    {
        cuda::StreamScope scope{0, next.get()};
        auto again = allocator.allocate(kBytes);
        CHECK(again->data() == freed);  // the cached block, without synchronising
        // Ordered after the pending memset to 1: on another stream it would run first and lose.
        REQUIRE(cudaMemsetAsync(again->data(), 2, kBytes, next.get()) == cudaSuccess);
        g_gate_open.store(true);  // before any copy to pageable memory, which waits for the stream
        REQUIRE(cudaMemcpyAsync(reused.data(), again->data(), kBytes, cudaMemcpyDeviceToHost, next.get()) ==
                cudaSuccess);
        REQUIRE(cudaMemcpyAsync(still_kept.data(), kept->data(), kBytes, cudaMemcpyDeviceToHost, next.get()) ==
                cudaSuccess);
        next.synchronize();
    }
    CHECK(std::count(reused.begin(), reused.end(), 2) == static_cast<std::ptrdiff_t>(kBytes));
    CHECK(std::count(still_kept.begin(), still_kept.end(), 3) == static_cast<std::ptrdiff_t>(kBytes));
}

TEST_CASE("cuda: allocator gives zero bytes a null block", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    auto storage = cuda::caching_allocator(0).allocate(0);
    CHECK(storage->data() == nullptr);
    CHECK(storage->bytes() == 0);
    CHECK(storage->device() == Device::cuda(0));
    CHECK_THROWS_AS(cuda::caching_allocator(0).allocate(-1), ValueError);
}

TEST_CASE("cuda: empty_cache returns every cached byte", "[cuda]") {
    RENSA_REQUIRE_CACHING();
    cuda::CachingAllocator& allocator = cuda::caching_allocator(0);
    auto kept = allocator.allocate(1 << 20);
    {
        std::vector<std::shared_ptr<Storage>> blocks;
        for (int64_t bytes : {100, 4096, 70000, 3 << 20}) blocks.push_back(allocator.allocate(bytes));
    }
    const AllocatorStats before = allocator.stats();
    CHECK(before.cached_bytes > 0);
    allocator.empty_cache();
    const AllocatorStats after = allocator.stats();
    CHECK(after.cached_bytes == 0);
    CHECK(after.allocated_bytes == before.allocated_bytes);  // live blocks stay
    REQUIRE(cudaMemsetAsync(kept->data(), 1, 1 << 20, cuda::current_stream(0)) == cudaSuccess);
}

TEST_CASE("cuda: out of memory names the bytes and leaves the allocator usable", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cuda::CachingAllocator& allocator = cuda::caching_allocator(0);
    const AllocatorStats before = allocator.stats();
    const int64_t one_pib = int64_t{1} << 50;
    CHECK_THROWS_AS(allocator.allocate(one_pib), OutOfMemoryError);
    CHECK_THROWS_WITH(allocator.allocate(one_pib), Contains("1125899906842624") && Contains("cuda:0"));
    CHECK(allocator.stats().allocated_bytes == before.allocated_bytes);
    CHECK(cudaGetLastError() == cudaSuccess);  // the failure left no sticky error behind
    auto storage = allocator.allocate(4096);
    REQUIRE(storage->data() != nullptr);
    REQUIRE(cudaMemsetAsync(storage->data(), 3, 4096, cuda::current_stream(0)) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(cuda::current_stream(0)) == cudaSuccess);
    // Through Array too.
    CHECK_THROWS_AS((void)Array::empty({one_pib}, Dtype::kUInt8, cuda0()), OutOfMemoryError);
}

TEST_CASE("cuda: storages outlive their allocator", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    auto allocator = std::make_shared<cuda::CachingAllocator>(0);
    auto storage = allocator->allocate(10000);
    allocator.reset();  // the storage holds the allocator
    REQUIRE(cudaMemsetAsync(storage->data(), 1, 10000, cuda::current_stream(0)) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(cuda::current_stream(0)) == cudaSuccess);
    storage.reset();  // frees into the allocator, which then goes
}

namespace {

struct LiveBlock {
    std::shared_ptr<Storage> storage;
    cudaStream_t stream;
    unsigned char value;
};

// The block's bytes read back on its own stream all equal the pattern written there.
void check_pattern(const LiveBlock& block) {
    const auto bytes = static_cast<size_t>(block.storage->bytes());
    std::vector<unsigned char> host(bytes, 0);
    REQUIRE(cudaMemcpyAsync(host.data(), block.storage->data(), bytes, cudaMemcpyDeviceToHost, block.stream) ==
            cudaSuccess);
    REQUIRE(cudaStreamSynchronize(block.stream) == cudaSuccess);
    size_t wrong = 0;
    for (unsigned char c : host) wrong += c != block.value ? 1 : 0;
    CHECK(wrong == 0);
}

void check_stats(const cuda::CachingAllocator& allocator, const AllocatorStats& base, int64_t live_bytes,
                 int64_t live_count, int64_t requests) {
    const AllocatorStats s = allocator.stats();
    const int64_t held = s.allocated_bytes - base.allocated_bytes;
    CHECK(held >= live_bytes);                                      // classes round up ...
    CHECK(held <= live_bytes + live_bytes / 8 + 512 * live_count);  // ... by at most 1/8 or one granule
    CHECK(s.peak_allocated_bytes >= s.allocated_bytes);
    CHECK(s.cached_bytes >= 0);
    CHECK(s.num_allocs == base.num_allocs + requests);
    CHECK(s.num_cache_hits - base.num_cache_hits <= requests);
}

}  // namespace

TEST_CASE("cuda: allocator churn on two streams keeps data and statistics right", "[cuda]") {
    RENSA_REQUIRE_CACHING();
    cuda::CachingAllocator& allocator = cuda::caching_allocator(0);
    cuda::Stream side{0};
    const cudaStream_t streams[] = {cuda::current_stream(0), side.get()};
    const AllocatorStats base = allocator.stats();
    std::mt19937 rng{1234};
    std::vector<LiveBlock> live;
    int64_t live_bytes = 0, requests = 0;
    for (int step = 0; step < 4000; ++step) {
        const bool allocate = live.empty() || (live.size() < 200 && rng() % 3 != 0);
        if (allocate) {
            const int which = static_cast<int>(rng() % 2);
            // Mostly small blocks, some large ones (several size classes each).
            const int64_t bytes = rng() % 8 == 0 ? 1 + rng() % (6 << 20) : 1 + rng() % 20000;
            cuda::StreamScope scope{0, streams[which]};
            LiveBlock block{allocator.allocate(bytes), streams[which], static_cast<unsigned char>(step % 251 + 1)};
            ++requests;
            REQUIRE(cudaMemsetAsync(block.storage->data(), block.value, static_cast<size_t>(bytes), block.stream) ==
                    cudaSuccess);
            if (rng() % 4 == 0) {  // also used on the other stream, after the write
                const cudaStream_t other = streams[1 - which];
                cuda::Event written{0};
                written.record(block.stream);
                written.wait(other);
                REQUIRE(cudaMemsetAsync(block.storage->data(), block.value, static_cast<size_t>(bytes), other) ==
                        cudaSuccess);
                allocator.record_stream(*block.storage, other);
            }
            live_bytes += bytes;
            live.push_back(std::move(block));
        } else {
            const size_t victim = rng() % live.size();
            if (step % 16 == 0) check_pattern(live[victim]);
            live_bytes -= live[victim].storage->bytes();
            live[victim] = std::move(live.back());
            live.pop_back();
        }
        if (step % 10 == 0) check_stats(allocator, base, live_bytes, static_cast<int64_t>(live.size()), requests);
    }
    for (const LiveBlock& block : live) check_pattern(block);
    live.clear();
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(allocator.stats().allocated_bytes == base.allocated_bytes);
    CHECK(allocator.stats().num_cache_hits > base.num_cache_hits);  // the cache served many requests
    allocator.empty_cache();
    CHECK(allocator.stats().cached_bytes == 0);
}

}  // namespace rensa::testing

namespace rensa::testing {
namespace {

TEST_CASE("cuda allocator: size classes, and exact blocks in the exact mode", "[cuda][host]") {
    CHECK(cuda::size_class(1, false) == 512);
    CHECK(cuda::size_class(513, false) == 1024);
    CHECK(cuda::size_class(int64_t{1} << 20, false) == int64_t{1} << 20);
    CHECK(cuda::size_class((int64_t{1} << 20) + 1, false) == (int64_t{1} << 20) + (int64_t{1} << 17));
    for (const int64_t bytes : {int64_t{4}, int64_t{512}, (int64_t{1} << 20) + 4}) {
        CHECK(cuda::size_class(bytes, true) == bytes);
    }
    // A one-byte atomic's CAS word stays inside the block.
    CHECK(cuda::size_class(1, true) == 4);
    CHECK(cuda::size_class(61, true) == 64);
    CHECK(cuda::size_class(513, true) == 516);
}

TEST_CASE("cuda allocator: RENSA_CUDA_EXACT_ALLOC is 0 or 1", "[cuda][host]") {
    const char* before = std::getenv("RENSA_CUDA_EXACT_ALLOC");
    const std::string saved = before != nullptr ? before : "";
    unsetenv("RENSA_CUDA_EXACT_ALLOC");
    CHECK_FALSE(cuda::exact_alloc_from_env());
    setenv("RENSA_CUDA_EXACT_ALLOC", "1", 1);
    CHECK(cuda::exact_alloc_from_env());
    setenv("RENSA_CUDA_EXACT_ALLOC", "0", 1);
    CHECK_FALSE(cuda::exact_alloc_from_env());
    setenv("RENSA_CUDA_EXACT_ALLOC", "yes", 1);
    CHECK_THROWS_WITH(cuda::exact_alloc_from_env(),
                      Catch::Contains("RENSA_CUDA_EXACT_ALLOC must be 0 or 1, got 'yes'"));
    if (before != nullptr) {
        setenv("RENSA_CUDA_EXACT_ALLOC", saved.c_str(), 1);
    } else {
        unsetenv("RENSA_CUDA_EXACT_ALLOC");
    }
}

}  // namespace
}  // namespace rensa::testing
