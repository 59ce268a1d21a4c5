#pragma once
// cuBLAS and cuDNN handles of the calling thread, one per device, bound to the calling
// thread's current stream of the device (see Note [Streams] in cuda/stream.h) each time
// they are fetched. Callers hold a DeviceGuard for `device`.
//
// Note [Per-thread handles]: a handle is bound to one stream at a time, so a handle shared
// by threads working on different streams races (one thread's cublasSetStream redirects
// the other's GEMM). Each thread therefore has its own handles, taken on first use from a
// free pool per device (or made); at the thread's exit they go back to that pool, so a
// thread started later reuses them (the last given back first) instead of making more.
// Handles are never destroyed (see Note [Leaked pools] in cuda/keyed_pool.h).

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

namespace rensa::cuda {

// The calling thread's handle of `device` (see Note [Per-thread handles]), bound to
// current_stream(device); the cuBLAS one also to the math mode of allow_tf32().
cublasHandle_t cublas_handle(int device);
cudnnHandle_t cudnn_handle(int device);

// TF32 tensor cores for float32 GEMM and convolution (PyTorch's allow_tf32). Off by
// default, so float32 results match the CPU to float32 precision. Process-wide.
void set_allow_tf32(bool allow);
bool allow_tf32();

}  // namespace rensa::cuda
