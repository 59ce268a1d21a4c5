// rensa._core.cuda (see core_cuda.h).
#include "python/src/core_cuda.h"

#include <string>

#include "core/backend.h"
#include "core/error.h"

#if RENSA_PY_WITH_CUDA
#include "cuda/allocator.h"
#include "cuda/cuda_backend.h"
#include "cuda/handles.h"
#include "cuda/pinned.h"
#endif

namespace rensa::python {
namespace {

#if RENSA_PY_WITH_CUDA

py::dict memory_stats(int device) {
    const AllocatorStats stats = cuda::caching_allocator(device).stats();
    py::dict out;
    out["allocated_bytes"] = stats.allocated_bytes;
    out["cached_bytes"] = stats.cached_bytes;
    out["peak_allocated_bytes"] = stats.peak_allocated_bytes;
    out["num_allocs"] = stats.num_allocs;
    out["num_cache_hits"] = stats.num_cache_hits;
    out["pinned_bytes_in_use"] = cuda::pinned_bytes_in_use();
    out["pinned_bytes_cached"] = cuda::pinned_bytes_cached();
    return out;
}

void bind_functions(py::module_& c) {
    c.attr("built") = true;
    c.def("device_count", &cuda::device_count, "Number of GPUs rensa can use (0 without a driver or device).");
    c.def(
        "synchronize", [](int device) { global_context().backend(Device::cuda(device)).synchronize(device); },
        py::arg("device") = 0, "Blocks until the work queued on the GPU's current stream is done.");
    c.def(
        "empty_cache",
        [](int device) {
            cuda::caching_allocator(device).empty_cache();
            cuda::empty_pinned_cache();
        },
        py::arg("device") = 0, "Frees the cached device blocks of the GPU and the cached pinned host blocks.");
    c.def("memory_stats", &memory_stats, py::arg("device") = 0,
          "The caching allocator's statistics of the GPU (bytes allocated, cached, peak; requests, cache hits) "
          "and the pinned host bytes.");
    c.def("set_allow_tf32", &cuda::set_allow_tf32, py::arg("allow"),
          "Lets float32 GEMM and convolution use TF32 tensor cores (off by default).");
    c.def("allow_tf32", &cuda::allow_tf32, "Whether float32 GEMM and convolution may use TF32 tensor cores.");
}

#else  // a build without the CUDA backend: the same names, zero devices

[[noreturn]] void no_cuda() {
    RENSA_THROW(DeviceError, "cuda: rensa was built without the CUDA backend (see rensa.print_runtime_info())");
}

void bind_functions(py::module_& c) {
    c.attr("built") = false;
    c.def(
        "device_count", [] { return 0; }, "Number of GPUs rensa can use (always 0: built without CUDA).");
    c.def(
        "synchronize", [](int) { no_cuda(); }, py::arg("device") = 0);
    c.def(
        "empty_cache", [](int) { no_cuda(); }, py::arg("device") = 0);
    c.def(
        "memory_stats", [](int) -> py::dict { no_cuda(); }, py::arg("device") = 0);
    c.def(
        "set_allow_tf32", [](bool) {}, py::arg("allow"));  // nothing to configure
    c.def("allow_tf32", [] { return false; });
}

#endif

}  // namespace

void bind_cuda(py::module_& m) {
#if RENSA_PY_WITH_CUDA
    // DESIGN.md: CUDA may install at import (cheap: no CUDA context is created, and
    // nothing is installed without a GPU).
    cuda::install_backend();
#endif
    py::module_ c = m.def_submodule("cuda", "The CUDA backend's runtime: devices, streams, caching allocator.");
    bind_functions(c);
}

}  // namespace rensa::python
