#pragma once
// The caching allocator of one GPU.
//
// Note [Stream-ordered caching]: cudaMalloc/cudaFree synchronise the device, so freed
// blocks are kept in size-class bins (at most 1/8 larger than asked, 512-byte granules
// for small requests) keyed by the stream they were allocated on. A block freed on its
// stream can be handed out again at once on that stream: later kernels on the same
// stream run after the ones that used it. A block also used on other streams
// (record_stream) is reused only after an event recorded on each of those streams at
// free time has completed (queried, never waited for). Out of memory: every cached block
// is released (empty_cache) and the request retried once; a second failure throws
// OutOfMemoryError naming the bytes requested, allocated and cached. Keying by the raw
// cudaStream_t is sound because a handle value names one stream for the process's life:
// default streams live until exit and cuda::Stream pools its streams instead of destroying
// them (Note [Stream pool] in cuda/stream.h), so a new Stream with an old handle value is
// the old stream, and reusing its cached blocks stays in stream order.
//
// RENSA_CUDA_EXACT_ALLOC=1 (for finding memory errors: scripts/gpu-check.sh, compute-sanitizer)
// gives every request a block of its bytes rounded up to a 4-byte word and caches nothing (a
// freed block goes back to the driver after a device synchronisation), so an access past the
// end of an array is past the end of its cudaMalloc block. (The word: one-byte atomics
// compare-and-swap the aligned 32-bit word holding their byte, as in cuda/kernels_indexing.cu;
// compute-sanitizer saw such a read 3 bytes past a 61-byte block.)

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <mutex>

#include "core/storage.h"

namespace rensa::cuda {

class CachingAllocator final : public Allocator, public std::enable_shared_from_this<CachingAllocator> {
public:
    explicit CachingAllocator(int device);
    ~CachingAllocator() override;

    // A block for use on current_stream(device) (see Note [Streams] in cuda/stream.h).
    // Zero bytes gives a valid storage with a null pointer.
    std::shared_ptr<Storage> allocate(int64_t bytes) override;
    // Synchronises the device and frees every cached block that no stream still uses.
    void empty_cache() override;
    AllocatorStats stats() const override;

    // Marks `storage` (one of this allocator's) as used on `stream` too: when freed, its
    // block is not reused before the work queued on `stream` by then is done.
    void record_stream(const Storage& storage, cudaStream_t stream);
    int device() const { return device_; }

    struct Impl;  // the bins and the live-block table (cuda/allocator.cc)

private:
    int device_;
    std::unique_ptr<Impl> impl_;
};

// The block size for a request of `bytes` (the size classes above; `bytes` rounded up to a
// multiple of 4 when exact).
int64_t size_class(int64_t bytes, bool exact);
// RENSA_CUDA_EXACT_ALLOC: unset, empty or 0: false; 1: true; anything else: ValueError.
bool exact_alloc_from_env();

// The caching allocator of GPU `device` (the installed CUDA backend's; DeviceError
// without one).
CachingAllocator& caching_allocator(int device);

}  // namespace rensa::cuda
