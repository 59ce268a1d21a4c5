#pragma once
// The examples' --device option (mnist, convnet): a device spec to a Device, installing
// the CUDA backend on demand. Header-only like the rest of examples/common.

#include <string>

#include "core/device.h"
#include "core/error.h"

#if defined(RENSA_HAVE_CUDA)
#include "cuda/cuda_backend.h"
#endif

namespace examples {

// --device native|cuda:N: the CUDA backend is installed on demand (builds with rensa_cuda
// define RENSA_HAVE_CUDA); a missing GPU or backend stops with a DeviceError saying so.
inline rensa::Device select_device(const std::string& spec) {
    const rensa::Device device = rensa::Device::parse(spec);
    if (device.kind == rensa::DeviceKind::kCuda) {
#if defined(RENSA_HAVE_CUDA)
        const int count = rensa::cuda::install_backend();
        RENSA_CHECK(device.index < count, DeviceError, "--device ", spec, ": ", count,
                    " CUDA device(s) usable in this process");
#else
        RENSA_THROW(DeviceError, "--device ", spec, ": this build has no CUDA backend (rensa_cuda not linked)");
#endif
    }
    return device;
}

}  // namespace examples
