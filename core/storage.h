#pragma once
// Storage: one block of device memory shared by every Array that views it.
// It returns its memory to the allocator that made it when the last Array goes.

#include <cstdint>
#include <functional>
#include <memory>

#include "core/device.h"

namespace rensa {

class Storage {
public:
    using Deleter = std::function<void(void*)>;
    Storage(void* data, int64_t bytes, Device device, Deleter deleter)
        : data_{data}, bytes_{bytes}, device_{device}, deleter_{std::move(deleter)} {}
    ~Storage() {
        if (deleter_) deleter_(data_);
    }
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() const { return data_; }
    int64_t bytes() const { return bytes_; }
    Device device() const { return device_; }

private:
    void* data_;
    int64_t bytes_;
    Device device_;
    Deleter deleter_;
};

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
