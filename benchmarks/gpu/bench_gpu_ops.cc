// GPU op benchmarks (benchmarks/README.md, "GPU"): rensa's ops against the library or
// hardware bound on the same buffers, timed with CUDA events on the backend's stream after
// a warm-up. One JSON line per figure:
//   matmul n^3 (float32, float32 with TF32, bfloat16): ops::matmul vs cublasGemmEx called
//     directly, ratio = cublas_ms / rensa_ms (target >= 0.9);
//   add on 256 MiB float32 operands: ops::add bandwidth (3 x 256 MiB moved) vs a
//     device-to-device cudaMemcpy of 256 MiB (2 x 256 MiB moved), ratio of the bandwidths
//     (target >= 0.8).
// Without a GPU it prints "no GPU" and exits 0.
//   bench_gpu_ops [--n 4096] [--iters 20]

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>

#include "core/array.h"
#include "core/ops/elementwise.h"
#include "core/ops/linalg.h"
#include "core/ops/random.h"
#include "cuda/check.h"
#include "cuda/cuda_backend.h"
#include "cuda/handles.h"
#include "cuda/stream.h"

using namespace rensa;

namespace {

constexpr int kDevice = 0;

// Milliseconds per call of `fn` (queued on the backend's stream), after `warmup` calls.
double time_ms(const std::function<void()>& fn, int iters, int warmup = 3) {
    for (int i = 0; i < warmup; ++i) fn();
    const cudaStream_t stream = cuda::current_stream(kDevice);
    cudaEvent_t start = nullptr, stop = nullptr;
    cuda::check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    cuda::check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
    cuda::check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < iters; ++i) fn();
    cuda::check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda::check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda::check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    cuda::check_cuda(cudaEventDestroy(start), "cudaEventDestroy");
    cuda::check_cuda(cudaEventDestroy(stop), "cudaEventDestroy");
    return static_cast<double>(ms) / iters;
}

// Row-major C = A B with cuBLAS (column-major): C^T = B^T A^T.
void bench_matmul(const char* label, Dtype dtype, bool tf32, int64_t n, int iters) {
    const Device gpu = Device::cuda(kDevice);
    const Array a = ops::uniform({n, n}, -1.0, 1.0, Dtype::kFloat32, gpu).astype(dtype);
    const Array b = ops::uniform({n, n}, -1.0, 1.0, Dtype::kFloat32, gpu).astype(dtype);
    const Array c = Array::empty({n, n}, dtype, gpu);
    cuda::set_allow_tf32(tf32);
    const double rensa_ms = time_ms([&] { (void)ops::matmul(a, b); }, iters);

    cublasHandle_t handle = nullptr;
    cuda::check_cublas(cublasCreate(&handle), "cublasCreate");
    cuda::check_cublas(cublasSetStream(handle, cuda::current_stream(kDevice)), "cublasSetStream");
    const cudaDataType type = dtype == Dtype::kFloat32 ? CUDA_R_32F : CUDA_R_16BF;
    const cublasComputeType_t compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const float alpha = 1.0f, beta = 0.0f;
    const int dim = static_cast<int>(n);
    const double cublas_ms = time_ms(
        [&] {
            cuda::check_cublas(
                cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &alpha, b.raw_data(), type, dim,
                             a.raw_data(), type, dim, &beta, c.raw_data(), type, dim, compute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
        },
        iters);
    cuda::check_cublas(cublasDestroy(handle), "cublasDestroy");
    cuda::set_allow_tf32(false);
    const double tflops = 2.0 * static_cast<double>(n) * n * n / (rensa_ms * 1e-3) / 1e12;
    std::printf(
        "{\"bench\": \"matmul\", \"config\": \"%s %lldx%lldx%lld\", \"rensa_ms\": %.4f, \"reference\": "
        "\"cublasGemmEx\", "
        "\"reference_ms\": %.4f, \"rensa_tflops\": %.2f, \"ratio\": %.3f, \"target\": 0.9}\n",
        label, static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(n), rensa_ms, cublas_ms,
        tflops, cublas_ms / rensa_ms);
    std::fflush(stdout);
}

void bench_add(int iters) {
    const Device gpu = Device::cuda(kDevice);
    constexpr int64_t kBytes = int64_t{256} << 20;
    const int64_t n = kBytes / 4;
    const Array a = ops::uniform({n}, -1.0, 1.0, Dtype::kFloat32, gpu);
    const Array b = ops::uniform({n}, -1.0, 1.0, Dtype::kFloat32, gpu);
    const Array c = Array::empty({n}, Dtype::kFloat32, gpu);
    const double add_ms = time_ms([&] { (void)ops::add(a, b); }, iters);
    const cudaStream_t stream = cuda::current_stream(kDevice);
    const double copy_ms = time_ms(
        [&] {
            cuda::check_cuda(cudaMemcpyAsync(c.raw_data(), a.raw_data(), kBytes, cudaMemcpyDeviceToDevice, stream),
                             "cudaMemcpyAsync");
        },
        iters);
    const double add_gbps = 3.0 * static_cast<double>(kBytes) / (add_ms * 1e-3) / 1e9;
    const double copy_gbps = 2.0 * static_cast<double>(kBytes) / (copy_ms * 1e-3) / 1e9;
    std::printf(
        "{\"bench\": \"add\", \"config\": \"float32 256 MiB\", \"rensa_ms\": %.4f, \"rensa_gbps\": %.1f, "
        "\"reference\": "
        "\"cudaMemcpy D2D\", \"reference_ms\": %.4f, \"reference_gbps\": %.1f, \"ratio\": %.3f, \"target\": 0.8}\n",
        add_ms, add_gbps, copy_ms, copy_gbps, add_gbps / copy_gbps);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    int64_t n = 4096;
    int iters = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--n") == 0) n = std::atoll(argv[i + 1]);
        if (std::strcmp(argv[i], "--iters") == 0) iters = std::atoi(argv[i + 1]);
    }
    if (cuda::install_backend() == 0) {
        std::printf("no GPU\n");
        return 0;
    }
    // One failing figure (an unsupported dtype, say) must not hide the others.
    int status = 0;
    const auto guarded = [&status](const char* name, const std::function<void()>& fn) {
        try {
            fn();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", name, e.what());
            status = 1;
        }
    };
    guarded("matmul float32", [&] { bench_matmul("float32", Dtype::kFloat32, false, n, iters); });
    guarded("matmul float32-tf32", [&] { bench_matmul("float32-tf32", Dtype::kFloat32, true, n, iters); });
    guarded("matmul bfloat16", [&] { bench_matmul("bfloat16", Dtype::kBFloat16, false, n, iters); });
    guarded("add", [&] { bench_add(iters); });
    return status;
}
