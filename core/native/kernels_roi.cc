// Region-of-interest pooling on the CPU (the contract is in core/kernels.h; the bins, the
// samples and their gradients are core/roi_geometry.h, Note [ROI geometry], which the CUDA
// kernels share). Forward: the (roi, channel) planes of y are independent and split over
// threads. Backward: every roi of a channel adds into that channel's planes of gx, so
// channels are split over threads and each thread walks the rois in order: the sums never
// depend on the thread count. Values compute in double, as Chainer's CPU code does.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"
#include "core/roi_geometry.h"

namespace rensa::native {
namespace {

void read_corners(RoiMode mode, const double* rois, int64_t r, double (&corners)[4]) {
    roi_corners(mode, rois + r * roi_row_size(mode), corners);
}

// x (n, c, h, w) and y (r, c, out_h, out_w) -> the parameters every bin shares.
RoiBinParams bin_params(RoiMode mode, double scale, int64_t sampling_h, int64_t sampling_w, const Shape& x,
                        const Shape& y) {
    return {.mode = mode,
            .spatial_scale = scale,
            .height = x[2],
            .width = x[3],
            .out_h = y[2],
            .out_w = y[3],
            .sampling_h = sampling_h,
            .sampling_w = sampling_w};
}

}  // namespace

void NativeKernels::roi_pool(const RoiPoolArgs& a) {
    const RoiBinParams p = bin_params(a.mode, a.spatial_scale, a.sampling_h, a.sampling_w, a.x.shape(), a.y.shape());
    const int64_t channels = a.x.shape()[1], plane = p.height * p.width, bins = p.out_h * p.out_w;
    const auto* batch = static_cast<const int32_t*>(a.roi_indices.raw_data());
    int64_t* indices = a.indices.defined() ? static_cast<int64_t*>(a.indices.raw_data()) : nullptr;
    visit_dtype(a.x.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            const auto* x = static_cast<const T*>(a.x.raw_data());
            const auto* rois = static_cast<const double*>(a.rois.raw_data());
            T* y = static_cast<T*>(a.y.raw_data());
            const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, bins * 8));
            parallel_for(a.y.shape()[0] * channels, grain, [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) {
                    const int64_t r = i / channels, c = i % channels;
                    double corners[4];
                    read_corners(a.mode, rois, r, corners);
                    const T* src = x + (batch[r] * channels + c) * plane;
                    const auto load = [src](int64_t pos) { return cast_value<double>(src[pos]); };
                    for (int64_t b = 0; b < bins; ++b) {
                        int64_t index = -1;
                        const double v = roi_bin_forward(p, corners, b / p.out_w, b % p.out_w, load, index);
                        y[i * bins + b] = cast_value<T>(v);
                        if (indices != nullptr) indices[i * bins + b] = index;
                    }
                }
            });
        }
    });
}

void NativeKernels::roi_pool_backward(const RoiPoolBackwardArgs& a) {
    const RoiBinParams p =
        bin_params(a.mode, a.spatial_scale, a.sampling_h, a.sampling_w, a.gx_acc.shape(), a.gy.shape());
    const int64_t channels = a.gx_acc.shape()[1], plane = p.height * p.width, bins = p.out_h * p.out_w;
    const int64_t rois_n = a.gy.shape()[0];
    const auto* batch = static_cast<const int32_t*>(a.roi_indices.raw_data());
    const auto* indices = a.indices.defined() ? static_cast<const int64_t*>(a.indices.raw_data()) : nullptr;
    visit_dtype(a.gy.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            visit_dtype(a.gx_acc.dtype(), [&]<typename A>() {
                if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double>) {
                    const auto* gy = static_cast<const T*>(a.gy.raw_data());
                    const auto* rois = static_cast<const double*>(a.rois.raw_data());
                    A* gx = static_cast<A*>(a.gx_acc.raw_data());
                    const int64_t grain =
                        std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, rois_n * bins * 8));
                    parallel_for(channels, grain, [&](int64_t begin, int64_t end) {
                        for (int64_t c = begin; c < end; ++c) {
                            for (int64_t r = 0; r < rois_n; ++r) {
                                double corners[4];
                                read_corners(a.mode, rois, r, corners);
                                A* dst = gx + (batch[r] * channels + c) * plane;
                                const auto add = [dst](int64_t pos, double v) { dst[pos] += static_cast<A>(v); };
                                const int64_t base = (r * channels + c) * bins;
                                for (int64_t b = 0; b < bins; ++b) {
                                    const int64_t index = indices != nullptr ? indices[base + b] : -1;
                                    roi_bin_backward(p, corners, b / p.out_w, b % p.out_w,
                                                     cast_value<double>(gy[base + b]), index, add);
                                }
                            }
                        }
                    });
                }
            });
        }
    });
}

}  // namespace rensa::native
