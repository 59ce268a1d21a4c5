#include "cuda/handles.h"

#include <atomic>

#include "core/error.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/keyed_pool.h"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

constexpr int kMaxDevices = 64;

std::atomic<bool> g_allow_tf32{false};

void check_device_index(int device) {
    RENSA_CHECK(device >= 0 && device < kMaxDevices, DeviceError, "cuda:", device, ": device index out of range");
}

// The handles of exited threads, per device (see Note [Per-thread handles]).
template <class Handle>
KeyedPool<int, Handle>& free_handles() {
    // Leaked deliberately (see Note [Leaked pools]).
    static auto* pool = new KeyedPool<int, Handle>;  // NOLINT(cppcoreguidelines-owning-memory)
    return *pool;
}

// The calling thread's handles; given back to free_handles() at the thread's exit.
template <class Handle>
ThreadSlots<Handle, kMaxDevices>& thread_handles() {
    thread_local ThreadSlots<Handle, kMaxDevices> slots{free_handles<Handle>()};
    return slots;
}

}  // namespace

cublasHandle_t cublas_handle(int device) {
    check_device_index(device);
    const cublasHandle_t handle = thread_handles<cublasHandle_t>().get(device, [device] {
        DeviceGuard guard{device};
        cublasHandle_t made = nullptr;
        check_cublas(cublasCreate(&made), "cublasCreate");
        return made;
    });
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
    const cudnnHandle_t handle = thread_handles<cudnnHandle_t>().get(device, [device] {
        DeviceGuard guard{device};
        cudnnHandle_t made = nullptr;
        check_cudnn(cudnnCreate(&made), "cudnnCreate");
        return made;
    });
    check_cudnn(cudnnSetStream(handle, current_stream(device)), "cudnnSetStream");
    return handle;
}

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }

bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }

}  // namespace rensa::cuda
