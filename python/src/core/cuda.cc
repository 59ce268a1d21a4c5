// rensa._core.cuda (see cuda.h).
//
// Note [Lazy CUDA]: rensa._core links no CUDA library (Note [Lazy native libraries],
// python/CMakeLists.txt). In a build with the CUDA backend it installs a stand-in for it at
// import: the first time anything asks the stand-in for a device, a kernel, an allocator or
// the device count, it imports rensa._cuda (the extension linked with the CUDA backend,
// cuBLAS and cuDNN) and forwards every call to the backend that one makes, or reports zero
// devices when no GPU is usable. The functions of rensa._core.cuda forward to rensa._cuda the
// same way. The load takes the GIL first and holds no other lock, so a thread without it
// cannot deadlock with one that has it.
#include "python/src/core/cuda.h"

#include <atomic>
#include <memory>
#include <string>

#include "core/backend.h"
#include "core/error.h"

namespace rensa::python {
namespace {

#if RENSA_PY_WITH_CUDA

// rensa._cuda, imported on first use.
py::module_ cuda_extension() { return py::module_::import("rensa._cuda"); }

class LazyCudaBackend final : public Backend {
public:
    DeviceKind kind() const override { return DeviceKind::kCuda; }
    int device_count() const override {
        Backend* b = real();
        return b == nullptr ? 0 : b->device_count();
    }
    Allocator& allocator(int index) override { return required().allocator(index); }
    Kernels& kernels(int index) override { return required().kernels(index); }
    void copy_to_host(int index, void* host_dst, const void* src, int64_t bytes) override {
        required().copy_to_host(index, host_dst, src, bytes);
    }
    void copy_from_host(int index, void* dst, const void* host_src, int64_t bytes) override {
        required().copy_from_host(index, dst, host_src, bytes);
    }
    void copy_between(int src_index, const void* src, int dst_index, void* dst, int64_t bytes) override {
        required().copy_between(src_index, src, dst_index, dst, bytes);
    }
    void synchronize(int index) override { required().synchronize(index); }

private:
    // The CUDA backend, loaded on the first call; null when no GPU is usable.
    Backend* real() const {
        if (loaded_.load(std::memory_order_acquire)) return real_.get();
        if (!Py_IsInitialized()) return nullptr;
        py::gil_scoped_acquire gil;  // serializes the load (See Note [Lazy CUDA])
        if (!loaded_.load(std::memory_order_relaxed)) {
            const py::capsule make = cuda_extension().attr("_backend_factory");
            auto* factory = reinterpret_cast<Backend* (*)()>(make.get_pointer());
            real_.reset(factory());
            loaded_.store(true, std::memory_order_release);
        }
        return real_.get();
    }
    Backend& required() const {
        Backend* b = real();
        RENSA_CHECK(b != nullptr, DeviceError,
                    "cuda: no usable GPU (no CUDA driver, or no device visible to this process; see "
                    "CUDA_VISIBLE_DEVICES)");
        return *b;
    }

    mutable std::unique_ptr<Backend> real_;
    mutable std::atomic<bool> loaded_{false};
};

void bind_cuda_functions(py::module_& c) {
    c.attr("built") = true;
    c.def(
        "device_count", [] { return global_context().backend(DeviceKind::kCuda).device_count(); },
        "Number of GPUs rensa can use (0 without a driver or device).");
    c.def(
        "synchronize", [](int device) { cuda_extension().attr("synchronize")(device); }, py::arg("device") = 0,
        "Blocks until the work queued on the GPU's current stream is done.");
    c.def(
        "empty_cache", [](int device) { cuda_extension().attr("empty_cache")(device); }, py::arg("device") = 0,
        "Frees the cached device blocks of the GPU and the cached pinned host blocks.");
    c.def(
        "memory_stats", [](int device) { return cuda_extension().attr("memory_stats")(device); }, py::arg("device") = 0,
        "The caching allocator's statistics of the GPU (bytes allocated, cached, peak; requests, cache hits) "
        "and the pinned host bytes.");
    c.def(
        "set_allow_tf32", [](bool allow) { cuda_extension().attr("set_allow_tf32")(allow); }, py::arg("allow"),
        "Lets float32 GEMM and convolution use TF32 tensor cores (off by default).");
    c.def(
        "allow_tf32", [] { return cuda_extension().attr("allow_tf32")(); },
        "Whether float32 GEMM and convolution may use TF32 tensor cores.");
}

#else  // a build without the CUDA backend: the same names, zero devices

[[noreturn]] void no_cuda() {
    RENSA_THROW(DeviceError, "cuda: rensa was built without the CUDA backend (see rensa.print_runtime_info())");
}

void bind_cuda_functions(py::module_& c) {
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
    // The stand-in of Note [Lazy CUDA]: cheap, maps nothing.
    if (!global_context().has_backend(DeviceKind::kCuda)) {
        global_context().install_backend(std::make_unique<LazyCudaBackend>());
    }
#endif
    py::module_ c = m.def_submodule("cuda", "The CUDA backend's runtime: devices, streams, caching allocator.");
    bind_cuda_functions(c);
}

}  // namespace rensa::python
