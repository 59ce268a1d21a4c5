#pragma once
// Storage: one block of device memory shared by every Array that views it.
// It returns its memory to the allocator that made it when the last Array goes.
//
// Note [Read-only memory]: a storage over memory nobody may write (a numpy array with
// writeable=False: np.frombuffer of bytes, a read-only memory map, np.broadcast_to) is
// read-only, and so is every Array viewing it. Every write into an existing array goes
// through check_writeable (core/array.h): Array::fill and assign, the in-place ops,
// scatter_add's target, optimizer updates, gradient destinations, NPZ loading and the
// in-place collectives raise ValueError naming the operation instead of writing (numpy's
// "assignment destination is read-only"). The numpy views rensa hands out of such memory are
// read-only too.
//
// A storage also carries the marks of deferred fused updates (pending_update): see Note
// [Batched fused updates] in core/ops/fused_update.h. Array::raw_data runs the calling
// thread's queued updates first when the storage is kPendingWrite, check_writeable when it
// has either mark.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/device.h"

namespace rensa {

class Storage {
public:
    using Deleter = std::function<void(void*)>;
    Storage(void* data, int64_t bytes, Device device, Deleter deleter, bool read_only = false)
        : data_{data}, bytes_{bytes}, device_{device}, deleter_{std::move(deleter)}, read_only_{read_only} {}
    ~Storage() {
        if (deleter_) deleter_(data_);
    }
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() const { return data_; }
    int64_t bytes() const { return bytes_; }
    Device device() const { return device_; }
    // See Note [Read-only memory].
    bool read_only() const { return read_only_; }

    // Marks of queued fused updates (see Note [Batched fused updates]): a queued update writes
    // this memory (kPendingWrite) or reads it as its grad (kPendingRead). Relaxed atomics: a
    // plain load on the hot path of raw_data.
    static constexpr uint8_t kPendingWrite = 1, kPendingRead = 2;
    uint8_t pending_update() const { return pending_update_.load(std::memory_order_relaxed); }
    void mark_pending_update(uint8_t marks) { pending_update_.fetch_or(marks, std::memory_order_relaxed); }
    void clear_pending_update() { pending_update_.store(0, std::memory_order_relaxed); }

private:
    void* data_;
    int64_t bytes_;
    Device device_;
    Deleter deleter_;
    bool read_only_;
    std::atomic<uint8_t> pending_update_{0};
};

namespace detail {
// Runs the calling thread's queued fused updates (core/ops/fused_update.cc); what raw_data
// and check_writeable call on a marked storage.
void run_pending_updates();
}  // namespace detail

// Statistics every allocator reports.
struct AllocatorStats {
    int64_t allocated_bytes = 0;  // held by live storages
    int64_t cached_bytes = 0;     // freed blocks kept for reuse
    int64_t peak_allocated_bytes = 0;
    int64_t num_allocs = 0;      // requests served
    int64_t num_cache_hits = 0;  // requests served from the cache
};

class Allocator {
public:
    virtual ~Allocator() = default;
    // Returns storage of at least `bytes` bytes; throws OutOfMemoryError naming the bytes.
    virtual std::shared_ptr<Storage> allocate(int64_t bytes) = 0;
    // Frees every cached block.
    virtual void empty_cache() = 0;
    virtual AllocatorStats stats() const = 0;
};

}  // namespace rensa
