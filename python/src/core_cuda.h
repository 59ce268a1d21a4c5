#pragma once
// rensa._core.cuda: the CUDA backend's runtime from Python (device count, synchronize,
// caching-allocator statistics, TF32). Called from bind_runtime_info (core_runtime.cc),
// which also installs the CUDA backend at import when one is built and a GPU is present.
#include "python/src/bind.h"

namespace rensa::python {

// Installs the CUDA backend (a no-op without a GPU or without a CUDA build) and adds the
// submodule "cuda" to `m`. In a build without CUDA the submodule reports zero devices and
// every device call raises RuntimeError.
void bind_cuda(py::module_& m);

}  // namespace rensa::python
