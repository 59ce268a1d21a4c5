// Region-of-interest pooling on the GPU, with the bins, samples and gradients of
// core/roi_geometry.h (Note [ROI geometry]) that the CPU runs too, in double.
// Forward: one thread per output bin. Backward: one thread per gy element.
//
// Note [ROI backward atomics]: the backward adds each bin's shares into a float32/float64
// accumulator with atomicAdd, as Chainer's GPU kernels do: rois overlap arbitrarily, so a
// gather per gx element would scan every roi. The order of the sums, and so their last
// bits, may vary between runs; the CPU walks rois in order and is deterministic.

#include <cstdint>

#include "core/roi_geometry.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

__device__ void read_corners(RoiMode mode, const double* rois, int64_t r, double (&corners)[4]) {
    roi_corners(mode, rois + r * roi_row_size(mode), corners);
}

template <class T>
__global__ void roi_pool_kernel(RoiBinParams p, const T* x, const double* rois, const int32_t* batch, int64_t channels,
                                T* y, int64_t* indices, int64_t total) {
    const int64_t bins = p.out_h * p.out_w, plane = p.height * p.width;
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        const int64_t b = i % bins, c = (i / bins) % channels, r = i / bins / channels;
        double corners[4];
        read_corners(p.mode, rois, r, corners);
        const T* src = x + (static_cast<int64_t>(batch[r]) * channels + c) * plane;
        const auto load = [src](int64_t pos) { return static_cast<double>(to_compute(src[pos])); };
        int64_t index = -1;
        const double v = roi_bin_forward(p, corners, b / p.out_w, b % p.out_w, load, index);
        y[i] = from_compute<T>(static_cast<ComputeT<T>>(v));
        if (indices != nullptr) indices[i] = index;
    }
}

template <class T, class A>
__global__ void roi_pool_backward_kernel(RoiBinParams p, const T* gy, const double* rois, const int32_t* batch,
                                         const int64_t* indices, int64_t channels, A* gx, int64_t total) {
    const int64_t bins = p.out_h * p.out_w, plane = p.height * p.width;
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        const int64_t b = i % bins, c = (i / bins) % channels, r = i / bins / channels;
        double corners[4];
        read_corners(p.mode, rois, r, corners);
        A* dst = gx + (static_cast<int64_t>(batch[r]) * channels + c) * plane;
        const auto add = [dst](int64_t pos, double v) { atomicAdd(dst + pos, static_cast<A>(v)); };
        const int64_t index = indices != nullptr ? indices[i] : -1;
        roi_bin_backward(p, corners, b / p.out_w, b % p.out_w, static_cast<double>(to_compute(gy[i])), index, add);
    }
}

RoiBinParams bin_params(RoiMode mode, double scale, int64_t sampling_h, int64_t sampling_w, const Shape& x,
                        const Shape& y) {
    RoiBinParams p;
    p.mode = mode;
    p.spatial_scale = scale;
    p.height = x[2];
    p.width = x[3];
    p.out_h = y[2];
    p.out_w = y[3];
    p.sampling_h = sampling_h;
    p.sampling_w = sampling_w;
    return p;
}

}  // namespace

void CudaKernels::roi_pool(const RoiPoolArgs& a) {
    const int64_t total = a.y.size();
    if (total == 0) return;
    DeviceGuard guard{device_};
    const RoiBinParams p = bin_params(a.mode, a.spatial_scale, a.sampling_h, a.sampling_w, a.x.shape(), a.y.shape());
    auto* indices = a.indices.defined() ? static_cast<int64_t*>(a.indices.raw_data()) : nullptr;
    visit_float_dtype(a.x.dtype(), [&]<typename T>() {
        roi_pool_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device_)>>>(
            p, static_cast<const T*>(a.x.raw_data()), static_cast<const double*>(a.rois.raw_data()),
            static_cast<const int32_t*>(a.roi_indices.raw_data()), a.x.shape()[1], static_cast<T*>(a.y.raw_data()),
            indices, total);
        check_launch("roi_pool_kernel");
    });
}

void CudaKernels::roi_pool_backward(const RoiPoolBackwardArgs& a) {
    const int64_t total = a.gy.size();
    if (total == 0) return;
    DeviceGuard guard{device_};
    const RoiBinParams p =
        bin_params(a.mode, a.spatial_scale, a.sampling_h, a.sampling_w, a.gx_acc.shape(), a.gy.shape());
    const auto* indices = a.indices.defined() ? static_cast<const int64_t*>(a.indices.raw_data()) : nullptr;
    const auto launch = [&]<typename T, typename A>() {
        roi_pool_backward_kernel<T, A><<<grid_for(total), kThreads, 0, current_stream(device_)>>>(
            p, static_cast<const T*>(a.gy.raw_data()), static_cast<const double*>(a.rois.raw_data()),
            static_cast<const int32_t*>(a.roi_indices.raw_data()), indices, a.gx_acc.shape()[1],
            static_cast<A*>(a.gx_acc.raw_data()), total);
        check_launch("roi_pool_backward_kernel");
    };
    visit_float_dtype(a.gy.dtype(), [&]<typename T>() {
        if (a.gx_acc.dtype() == Dtype::kFloat64) {
            launch.template operator()<T, double>();
        } else {
            launch.template operator()<T, float>();
        }
    });
}

}  // namespace rensa::cuda
