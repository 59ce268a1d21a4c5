#pragma once
// rensa._core.cuda: the CUDA backend's runtime from Python (device count, synchronize,
// caching-allocator statistics, TF32). Called from bind_runtime_info (runtime_info.cc).
#include "python/src/bind.h"

namespace rensa::python {

// Installs the stand-in of Note [Lazy CUDA] (cuda.cc) for the CUDA backend (no-op
// without a CUDA build) and adds the submodule "cuda" to `m`, whose functions load
// rensa._cuda when called. In a build without CUDA the submodule reports zero devices and
// every device call raises RuntimeError.
void bind_cuda(py::module_& m);

}  // namespace rensa::python
