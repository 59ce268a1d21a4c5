#pragma once
// An allocator's statistics (core/storage.h) as the dict that rensa._core.native_memory_stats
// and rensa.cuda.memory_stats return; each caller adds its own keys.
#include <pybind11/pybind11.h>

#include "core/storage.h"

namespace rensa::python {

inline pybind11::dict allocator_stats_dict(const AllocatorStats& stats) {
    pybind11::dict out;
    out["allocated_bytes"] = stats.allocated_bytes;
    out["cached_bytes"] = stats.cached_bytes;
    out["peak_allocated_bytes"] = stats.peak_allocated_bytes;
    out["num_allocs"] = stats.num_allocs;
    out["num_cache_hits"] = stats.num_cache_hits;
    return out;
}

}  // namespace rensa::python
