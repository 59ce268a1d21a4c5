#pragma once
// Per-device cuBLAS and cuDNN handles, made on first use, bound to the calling thread's
// current stream of the device (see Note [Streams] in cuda/stream.h) each time they are
// fetched. Callers hold a DeviceGuard for `device`.

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

namespace rensa::cuda {

cublasHandle_t cublas_handle(int device);
cudnnHandle_t cudnn_handle(int device);

// TF32 tensor cores for float32 GEMM and convolution (PyTorch's allow_tf32). Off by
// default, so float32 results match the CPU to float32 precision. Process-wide.
void set_allow_tf32(bool allow);
bool allow_tf32();

}  // namespace rensa::cuda
