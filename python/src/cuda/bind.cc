// rensa._cuda: the CUDA backend's runtime, an extension of its own so that `import rensa` maps
// no CUDA library (Note [Lazy CUDA], python/src/core/cuda.cc). rensa._core imports it the first time a
// CUDA device is used and takes the backend from _backend_factory; rensa._core.cuda and
// rensa.cuda forward their functions here.
#include "python/src/bind.h"
#include "core/backend.h"
#include "cuda/allocator.h"
#include "cuda/cuda_backend.h"
#include "cuda/handles.h"
#include "cuda/pinned.h"
#include "python/src/convert/allocator_stats.h"

namespace rensa::python {
namespace {

py::dict memory_stats(int device) {
    py::dict out = allocator_stats_dict(cuda::caching_allocator(device).stats());
    out["pinned_bytes_in_use"] = cuda::pinned_bytes_in_use();
    out["pinned_bytes_cached"] = cuda::pinned_bytes_cached();
    return out;
}

// The CUDA backend for rensa._core's stand-in (owned by the caller), or null without a GPU.
Backend* make_backend() { return cuda::device_count() > 0 ? cuda::make_cuda_backend().release() : nullptr; }

}  // namespace
}  // namespace rensa::python

PYBIND11_MODULE(_cuda, m) {
    using namespace rensa;
    using namespace rensa::python;
    m.doc() = "The CUDA backend's runtime: devices, streams, caching allocator (loaded on first use).";
    m.attr("_backend_factory") = py::capsule(reinterpret_cast<void*>(&make_backend), "rensa._cuda.backend_factory");
    m.def("device_count", &cuda::device_count, "Number of GPUs rensa can use (0 without a driver or device).");
    m.def(
        "synchronize", [](int device) { global_context().backend(Device::cuda(device)).synchronize(device); },
        py::arg("device") = 0, "Blocks until the work queued on the GPU's current stream is done.");
    m.def(
        "empty_cache",
        [](int device) {
            cuda::caching_allocator(device).empty_cache();
            cuda::empty_pinned_cache();
        },
        py::arg("device") = 0, "Frees the cached device blocks of the GPU and the cached pinned host blocks.");
    m.def("memory_stats", &memory_stats, py::arg("device") = 0,
          "The caching allocator's statistics of the GPU (bytes allocated, cached, peak; requests, cache hits) "
          "and the pinned host bytes.");
    m.def("set_allow_tf32", &cuda::set_allow_tf32, py::arg("allow"),
          "Lets float32 GEMM and convolution use TF32 tensor cores (off by default).");
    m.def("allow_tf32", &cuda::allow_tf32, "Whether float32 GEMM and convolution may use TF32 tensor cores.");
}
