// Batch normalization on the GPU (Kernels::batch_norm and batch_norm_backward) on x viewed
// as (n, c, s), the formulas of core/native/kernels_norm.cc: per-channel sums in the
// compute type (float for float16/bfloat16) around a shift, totals in double, then one
// elementwise pass with per-channel coefficients.
//
// Note [Batch norm kernels]: each channel's n * s elements are cut into slices (enough
// to fill the GPU when channels are few); a block per (channel, slice) sums its slice,
// each thread in the compute type, the threads' sums added in double in shared memory.
// A thread per channel then adds the slices' sums in order (deterministic) and turns the
// totals into the channel's outputs (mean and inv_std forward, ggamma, gbeta and the
// coefficients of gx backward) with the native kernel's double formulas. The elementwise
// passes take one thread per element.
// Statistics around x[0, c, 0] (as the native kernel) keep the variance accurate without
// a second pass. cuDNN's batch normalization is not used: its float16 kernels round
// differently and its saved statistics skip the shift; these kernels are bandwidth-bound
// like cuDNN's (two reads of x forward, two of x and gy backward).

#include <cuda_runtime.h>
#include <math_constants.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

struct Dims {
    int64_t n, c, s;
    __host__ __device__ int64_t m() const { return n * s; }  // elements per channel
};

Dims dims_of(const Array& x) { return {x.shape()[0], x.shape()[1], x.shape()[2]}; }

template <class T>
const T* data_of(const Array& a) {
    return static_cast<const T*>(a.raw_data());
}
template <class T>
T* mutable_data_of(const Array& a) {
    return static_cast<T*>(a.raw_data());
}

// Adds u and v over the block (kThreads threads) in double; thread 0 gets the totals.
__device__ inline void block_sum2(double& u, double& v) {
    __shared__ double su[kThreads], sv[kThreads];
    su[threadIdx.x] = u;
    sv[threadIdx.x] = v;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) {
            su[threadIdx.x] += su[threadIdx.x + half];
            sv[threadIdx.x] += sv[threadIdx.x + half];
        }
        __syncthreads();
    }
    u = su[0];
    v = sv[0];
    __syncthreads();  // the next slice's sums reuse the shared arrays
}

// Element j (0 <= j < n * s) of channel c in the (n, c, s) layout; I (uint32_t when every
// offset fits, else uint64_t) is the type of the divisions, which dominate the cost.
template <class I>
__device__ inline int64_t channel_offset(int64_t j, int64_t c, const Dims& d) {
    const I q = static_cast<I>(j) / static_cast<I>(d.s), r = static_cast<I>(j) % static_cast<I>(d.s);
    return (static_cast<int64_t>(q) * d.c + c) * d.s + static_cast<int64_t>(r);
}
template <class I>
__device__ inline int64_t channel_of(int64_t i, const Dims& d) {
    return static_cast<int64_t>((static_cast<I>(i) / static_cast<I>(d.s)) % static_cast<I>(d.c));
}

// The per-channel sums are split into `splits` slices of the channel's n * s elements, a
// block per (channel, slice): part[2 * (c * splits + k) + {0, 1}] = the slice's two sums.
struct Slices {
    int64_t splits, chunk;
};

Slices slices_of(const Dims& d) {
    const int64_t m = d.m();
    // Enough blocks to fill the GPU, each with at least 2048 elements.
    const int64_t by_size = (m + 2047) / 2048, by_blocks = (1024 + d.c - 1) / d.c;
    const int64_t splits = std::max<int64_t>(1, std::min(by_size, by_blocks));
    return {splits, (m + splits - 1) / splits};
}

// The channel's shift (see Note [Batch norm kernels]): its first element.
template <class T>
__device__ inline ComputeT<T> shift_of(const T* x, int64_t c, const Dims& d) {
    return d.m() > 0 ? to_compute(x[c * d.s]) : ComputeT<T>{0};
}

// Slice sums of x - shift and (x - shift)^2.
template <class T, class I>
__global__ void stats_part_kernel(const T* x, Dims d, Slices sl, double* part) {
    using S = ComputeT<T>;
    for (int64_t q = blockIdx.x; q < d.c * sl.splits; q += gridDim.x) {
        const int64_t c = q / sl.splits, begin = (q % sl.splits) * sl.chunk;
        const int64_t end = begin + sl.chunk < d.m() ? begin + sl.chunk : d.m();
        const S shift = shift_of(x, c, d);
        S u = 0, v = 0;
        for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
            const S dx = to_compute(x[channel_offset<I>(j, c, d)]) - shift;
            u += dx;
            v += dx * dx;
        }
        double su = static_cast<double>(u), sv = static_cast<double>(v);
        block_sum2(su, sv);
        if (threadIdx.x == 0) {
            part[2 * q] = su;
            part[2 * q + 1] = sv;
        }
    }
}

// mean[c], inv_std[c] from the slice sums, the native kernel's double formulas.
template <class T>
__global__ void stats_finish_kernel(const T* x, Dims d, Slices sl, const double* part, double eps, ComputeT<T>* mean,
                                    ComputeT<T>* inv_std) {
    using S = ComputeT<T>;
    for (int64_t c = grid_index(); c < d.c; c += grid_stride()) {
        double su = 0.0, sv = 0.0;
        for (int64_t k = 0; k < sl.splits; ++k) {
            su += part[2 * (c * sl.splits + k)];
            sv += part[2 * (c * sl.splits + k) + 1];
        }
        const int64_t m = d.m();
        const double md = static_cast<double>(m);
        const double mu = m > 0 ? su / md : CUDART_NAN;
        const double var0 = sv / md - mu * mu;
        const double var = var0 < 0.0 ? 0.0 : var0;  // std::max(var0, 0.0): NaN stays NaN
        mean[c] = static_cast<S>(static_cast<double>(shift_of(x, c, d)) + mu);
        inv_std[c] = static_cast<S>(1.0 / sqrt(var + eps));
    }
}

// y = gamma * inv_std * (x - mean) + beta, per channel, the native kernel's rounding.
template <class T, class I>
__global__ void normalize_kernel(const T* x, Dims d, const ComputeT<T>* gamma, const ComputeT<T>* beta,
                                 const ComputeT<T>* mean, const ComputeT<T>* inv_std, T* y) {
    using S = ComputeT<T>;
    const int64_t total = d.n * d.c * d.s;
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        const int64_t c = channel_of<I>(i, d);
        const S p = gamma[c] * inv_std[c];
        y[i] = from_compute<T>(p * (to_compute(x[i]) - mean[c]) + beta[c]);
    }
}

// Slice sums of gy and gy * (x - mean).
template <class T, class I>
__global__ void grad_part_kernel(const T* gy, const T* x, Dims d, Slices sl, const ComputeT<T>* mean, double* part) {
    using S = ComputeT<T>;
    for (int64_t q = blockIdx.x; q < d.c * sl.splits; q += gridDim.x) {
        const int64_t c = q / sl.splits, begin = (q % sl.splits) * sl.chunk;
        const int64_t end = begin + sl.chunk < d.m() ? begin + sl.chunk : d.m();
        const S mu = mean[c];
        S u = 0, v = 0;
        for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
            const int64_t k = channel_offset<I>(j, c, d);
            const S g = to_compute(gy[k]);
            u += g;
            v += g * (to_compute(x[k]) - mu);
        }
        double su = static_cast<double>(u), sv = static_cast<double>(v);
        block_sum2(su, sv);
        if (threadIdx.x == 0) {
            part[2 * q] = su;
            part[2 * q + 1] = sv;
        }
    }
}

// ggamma, gbeta and gx's coefficients gx = p * gy + q * (x - mean) + r in coef (p, q, r;
// 3 * c values), the native kernel's double formulas.
template <class S>
__global__ void grad_finish_kernel(Dims d, Slices sl, const double* part, const S* gamma, const S* inv_std, S* ggamma,
                                   S* gbeta, S* coef) {
    const int64_t m = d.m();
    const double inv_m = m > 0 ? 1.0 / static_cast<double>(m) : 0.0;
    for (int64_t c = grid_index(); c < d.c; c += grid_stride()) {
        double sum_gy = 0.0, sum_gy_xmu = 0.0;
        for (int64_t k = 0; k < sl.splits; ++k) {
            sum_gy += part[2 * (c * sl.splits + k)];
            sum_gy_xmu += part[2 * (c * sl.splits + k) + 1];
        }
        const double is = static_cast<double>(inv_std[c]), gb = sum_gy, gg = sum_gy_xmu * is;
        ggamma[c] = static_cast<S>(gg);
        gbeta[c] = static_cast<S>(gb);
        const double pc = static_cast<double>(gamma[c]) * is;
        coef[c] = static_cast<S>(pc);
        coef[d.c + c] = static_cast<S>(-pc * is * gg * inv_m);
        coef[2 * d.c + c] = static_cast<S>(-pc * gb * inv_m);
    }
}

template <class T, class I>
__global__ void grad_apply_kernel(const T* gy, const T* x, Dims d, const ComputeT<T>* mean, const ComputeT<T>* coef,
                                  T* gx) {
    using S = ComputeT<T>;
    const int64_t total = d.n * d.c * d.s;
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        const int64_t c = channel_of<I>(i, d);
        const S p = coef[c], q = coef[d.c + c], r = coef[2 * d.c + c];
        gx[i] = from_compute<T>(p * to_compute(gy[i]) + q * (to_compute(x[i]) - mean[c]) + r);
    }
}

// Scratch memory of the current stream; kept alive by the caller until the launches are
// queued (the allocator is stream-ordered).
std::shared_ptr<Storage> scratch(int device, int64_t bytes) { return caching_allocator(device).allocate(bytes); }

template <class T, class I>
void batch_norm_typed(const BatchNormArgs& args, int device, cudaStream_t stream) {
    using S = ComputeT<T>;
    const Dims d = dims_of(args.x);
    S* mean = mutable_data_of<S>(args.mean);
    S* inv_std = mutable_data_of<S>(args.inv_std);
    const T* x = data_of<T>(args.x);
    if (args.compute_stats) {
        const Slices sl = slices_of(d);
        const std::shared_ptr<Storage> part = scratch(device, 2 * d.c * sl.splits * int64_t{sizeof(double)});
        double* p = static_cast<double*>(part->data());
        stats_part_kernel<T, I><<<grid_for(d.c * sl.splits, 1), kThreads, 0, stream>>>(x, d, sl, p);
        check_launch("batch_norm_stats");
        stats_finish_kernel<T><<<grid_for(d.c), kThreads, 0, stream>>>(x, d, sl, p, args.eps, mean, inv_std);
        check_launch("batch_norm_stats_finish");
    }
    const int64_t total = d.n * d.c * d.s;
    if (total == 0) return;
    normalize_kernel<T, I><<<grid_for(total), kThreads, 0, stream>>>(
        x, d, data_of<S>(args.gamma), data_of<S>(args.beta), mean, inv_std, mutable_data_of<T>(args.y));
    check_launch("batch_norm_normalize");
}

template <class T, class I>
void batch_norm_backward_typed(const BatchNormBackwardArgs& args, int device, cudaStream_t stream) {
    using S = ComputeT<T>;
    const Dims d = dims_of(args.x);
    const Slices sl = slices_of(d);
    const std::shared_ptr<Storage> part = scratch(device, 2 * d.c * sl.splits * int64_t{sizeof(double)});
    const std::shared_ptr<Storage> coef = scratch(device, 3 * d.c * int64_t{sizeof(S)});
    double* p = static_cast<double*>(part->data());
    S* coef_data = static_cast<S*>(coef->data());
    const T* gy = data_of<T>(args.gy);
    const T* x = data_of<T>(args.x);
    const S* mean = data_of<S>(args.mean);
    grad_part_kernel<T, I><<<grid_for(d.c * sl.splits, 1), kThreads, 0, stream>>>(gy, x, d, sl, mean, p);
    check_launch("batch_norm_backward_sums");
    grad_finish_kernel<S><<<grid_for(d.c), kThreads, 0, stream>>>(
        d, sl, p, data_of<S>(args.gamma), data_of<S>(args.inv_std), mutable_data_of<S>(args.ggamma),
        mutable_data_of<S>(args.gbeta), coef_data);
    check_launch("batch_norm_backward_finish");
    const int64_t total = d.n * d.c * d.s;
    if (total == 0) return;
    grad_apply_kernel<T, I>
        <<<grid_for(total), kThreads, 0, stream>>>(gy, x, d, mean, coef_data, mutable_data_of<T>(args.gx));
    check_launch("batch_norm_backward_apply");
}

// 32-bit index divisions when every offset fits (see channel_offset).
bool small_index(const Array& x) { return x.size() <= int64_t{std::numeric_limits<int32_t>::max()}; }

}  // namespace

void CudaKernels::batch_norm(const BatchNormArgs& args) {
    RENSA_CHECK(is_float(args.x.dtype()), DtypeError, "batch_norm: x must be floating point, got ",
                dtype_name(args.x.dtype()));
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    if (dims_of(args.x).c == 0) return;
    visit_float_dtype(args.x.dtype(), [&]<typename T>() {
        if (small_index(args.x)) return batch_norm_typed<T, uint32_t>(args, device_, stream);
        batch_norm_typed<T, uint64_t>(args, device_, stream);
    });
}

void CudaKernels::batch_norm_backward(const BatchNormBackwardArgs& args) {
    RENSA_CHECK(is_float(args.x.dtype()), DtypeError, "batch_norm_backward: x must be floating point, got ",
                dtype_name(args.x.dtype()));
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    if (dims_of(args.x).c == 0) return;
    visit_float_dtype(args.x.dtype(), [&]<typename T>() {
        if (small_index(args.x)) return batch_norm_backward_typed<T, uint32_t>(args, device_, stream);
        batch_norm_backward_typed<T, uint64_t>(args, device_, stream);
    });
}

}  // namespace rensa::cuda
