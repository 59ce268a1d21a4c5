#pragma once
// Pinned (page-locked) host buffers for host <-> device copies, cached by size class so a
// training loop does not call cudaHostAlloc per batch. Copies through them run at full
// PCIe/NVLink speed and may be asynchronous.

#include <cstdint>
#include <memory>

namespace rensa::cuda {

// A pinned host block of at least `bytes` bytes; it returns to the cache when the last
// copy of the pointer goes. Throws OutOfMemoryError naming the bytes when none can be had.
std::shared_ptr<void> pinned_buffer(int64_t bytes);
// Frees every cached pinned block that no one holds.
void empty_pinned_cache();
// Bytes of pinned memory held by live buffers and by the cache.
int64_t pinned_bytes_in_use();
int64_t pinned_bytes_cached();

}  // namespace rensa::cuda
