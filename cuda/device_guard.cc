#include "cuda/device_guard.h"

#include <cuda_runtime.h>

#include "cuda/check.h"

namespace rensa::cuda {

DeviceGuard::DeviceGuard(int index) {
    int current = -1;
    check_cuda(cudaGetDevice(&current), "cudaGetDevice");
    if (current == index) return;
    check_cuda(cudaSetDevice(index), "cudaSetDevice");
    previous_ = current;
}

DeviceGuard::~DeviceGuard() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);  // destructors do not throw
}

}  // namespace rensa::cuda
