#pragma once
// Every CUDA, cuBLAS and cuDNN status goes through one of these (docs/style.md, rule 3). The
// error names the call, the device (the calling thread's current one) and the library's
// own message: "cudaMemcpyAsync on cuda:0: an illegal memory access was encountered
// (cudaErrorIllegalAddress)".

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string_view>

#include "core/error.h"

namespace rensa::cuda {

// A failed CUDA, cuBLAS or cuDNN call (a RuntimeError in Python, like every DeviceError).
class CudaError : public DeviceError {
public:
    using DeviceError::DeviceError;
};

// Throw CudaError naming `call` when status is not success. check_cuda also clears the
// runtime's sticky last error for non-sticky failures, so one failure is reported once.
void check_cuda(cudaError_t status, std::string_view call);
void check_cublas(cublasStatus_t status, std::string_view call);
void check_cudnn(cudnnStatus_t status, std::string_view call);
// After a kernel launch (docs/style.md, rule 11: after each launch): check_cuda(cudaGetLastError(), kernel).
void check_launch(std::string_view kernel);

}  // namespace rensa::cuda
