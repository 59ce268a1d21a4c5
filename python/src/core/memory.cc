// rensa._core's view of the native allocator's cache (Note [Native cache limit] in
// core/native/native_allocator.cc): statistics, emptying, the limit.
#include "core/backend.h"
#include "core/native/native_allocator.h"
#include "python/src/convert/allocator_stats.h"
#include "python/src/core/core.h"

namespace rensa::python {
namespace {

native::NativeAllocator& native_allocator() {
    auto* allocator = dynamic_cast<native::NativeAllocator*>(&global_context().allocator(Device::native()));
    RENSA_CHECK(allocator != nullptr, DeviceError, "native_memory_stats: the native backend has no NativeAllocator");
    return *allocator;
}

py::dict native_memory_stats() {
    native::NativeAllocator& allocator = native_allocator();
    py::dict out = allocator_stats_dict(allocator.stats());
    out["cache_limit"] = allocator.cache_limit();
    return out;
}

}  // namespace

void bind_core_memory(py::module_& m) {
    m.def("native_memory_stats", &native_memory_stats,
          "The native allocator's statistics: allocated_bytes (held by live arrays), cached_bytes (freed blocks "
          "kept for reuse, at most cache_limit), peak_allocated_bytes, num_allocs, num_cache_hits, cache_limit.");
    m.def(
        "native_empty_cache", [] { native_allocator().empty_cache(); },
        "Frees the native allocator's cached blocks back to the system.");
    m.def(
        "native_set_cache_limit", [](int64_t bytes) { native_allocator().set_cache_limit(bytes); }, py::arg("bytes"),
        "Caps the bytes of freed blocks the native allocator keeps (default 1 GiB or RENSA_NATIVE_CACHE_LIMIT); "
        "frees cached blocks beyond it.");
}

}  // namespace rensa::python
