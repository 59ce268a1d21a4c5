#pragma once
// The CUDA backend (devices `cuda:0`, `cuda:1`, ...). Installed into a Context by an
// explicit call (docs/design.md, "Core": no static registrars): programs that want GPUs call
// `cuda::install_backend()` once; the Python module does so at import.

#include <memory>

#include "core/backend.h"

namespace rensa::cuda {

// Number of GPUs this process can use: 0 when there is no driver or no device. Never
// throws; does not create a CUDA context.
int device_count();
inline bool is_available() { return device_count() > 0; }

// The backend itself (one allocator, default stream and Kernels per device). Throws
// DeviceError when no GPU is usable.
std::unique_ptr<Backend> make_cuda_backend();
// Installs make_cuda_backend() into `context` when at least one GPU is usable (and none
// is installed yet); returns device_count(). Without a GPU it installs nothing and returns 0.
int install_backend(Context& context = global_context());

}  // namespace rensa::cuda
