#include "cuda/check.h"

#include <string>

namespace rensa::cuda {
namespace {

std::string current_device_name() {
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        return "cuda:?";
    }
    return "cuda:" + std::to_string(device);
}

}  // namespace

void check_cuda(cudaError_t status, std::string_view call) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();  // clear a non-sticky error so it is reported once
    RENSA_THROW(cuda::CudaError, call, " on ", current_device_name(), ": ", cudaGetErrorString(status), " (",
                cudaGetErrorName(status), ")");
}

void check_cublas(cublasStatus_t status, std::string_view call) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    RENSA_THROW(cuda::CudaError, call, " on ", current_device_name(), ": ", cublasGetStatusString(status), " (",
                cublasGetStatusName(status), ")");
}

void check_cudnn(cudnnStatus_t status, std::string_view call) {
    if (status == CUDNN_STATUS_SUCCESS) return;
    char detail[512] = {};
    cudnnGetLastErrorString(detail, sizeof(detail));
    RENSA_THROW(cuda::CudaError, call, " on ", current_device_name(), ": ", cudnnGetErrorString(status),
                detail[0] != '\0' ? " (" : "", detail, detail[0] != '\0' ? ")" : "");
}

void check_launch(std::string_view kernel) { check_cuda(cudaGetLastError(), kernel); }

}  // namespace rensa::cuda
