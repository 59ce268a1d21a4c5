#include "cuda/handles.h"

#include <array>
#include <atomic>
#include <mutex>

#include "core/error.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

constexpr int kMaxDevices = 64;

std::atomic<bool> g_allow_tf32{false};

// The handles are never destroyed: cublasDestroy/cudnnDestroy at static-destruction time,
// after the CUDA runtime has unloaded, crash; the driver reclaims them at exit. Hence the
// leaked table.
struct Handles {
    std::mutex mutex;
    std::array<cublasHandle_t, kMaxDevices> cublas{};
    std::array<cudnnHandle_t, kMaxDevices> cudnn{};
};

Handles& handles() {
    static auto* table = new Handles;  // leaked deliberately, see above
    return *table;
}

void check_device_index(int device) {
    RENSA_CHECK(device >= 0 && device < kMaxDevices, DeviceError, "cuda:", device, ": device index out of range");
}

}  // namespace

cublasHandle_t cublas_handle(int device) {
    check_device_index(device);
    Handles& table = handles();
    cublasHandle_t handle = nullptr;
    {
        std::lock_guard lock{table.mutex};
        cublasHandle_t& slot = table.cublas[static_cast<size_t>(device)];
        if (slot == nullptr) {
            DeviceGuard guard{device};
            cublasHandle_t made = nullptr;
            check_cublas(cublasCreate(&made), "cublasCreate");
            slot = made;
        }
        handle = slot;
    }
    // Bound on each fetch to the caller's current stream and TF32 setting. (cublasSetStream
    // also resets the handle to cuBLAS's own workspace for that stream.)
    check_cublas(cublasSetStream(handle, current_stream(device)), "cublasSetStream");
    // Half and bfloat16 GEMMs must not reduce in their output type (as CUBLAS_DEFAULT_MATH allows):
    // they accumulate in float32, as the native backend does.
    const auto mode = static_cast<cublasMath_t>((allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH) |
                                                CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    check_cublas(cublasSetMathMode(handle, mode), "cublasSetMathMode");
    return handle;
}

cudnnHandle_t cudnn_handle(int device) {
    check_device_index(device);
    Handles& table = handles();
    cudnnHandle_t handle = nullptr;
    {
        std::lock_guard lock{table.mutex};
        cudnnHandle_t& slot = table.cudnn[static_cast<size_t>(device)];
        if (slot == nullptr) {
            DeviceGuard guard{device};
            cudnnHandle_t made = nullptr;
            check_cudnn(cudnnCreate(&made), "cudnnCreate");
            slot = made;
        }
        handle = slot;
    }
    check_cudnn(cudnnSetStream(handle, current_stream(device)), "cudnnSetStream");
    return handle;
}

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }

bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }

}  // namespace rensa::cuda
