// Pooling on the GPU: max and average pooling over 1 to 3 spatial dims and their
// backward, with the semantics of core/native/kernels_pool.cc (spatial dims padded to
// three with leading unit dims; windows clipped to the input; first max, NaN propagates,
// empty window -inf and index -1). Custom kernels: cuDNN pooling cannot output the int64
// argmax indices the contract requires.
//
// Forward: one thread per output element walks its window in (z, y, x) order, as the CPU
// does, so sums are added in the same order. Backward: one thread per gx element loops
// over the windows that cover it in output order (no atomics, deterministic; the CPU adds
// each window's share in the same order). The max backward matches indices against the
// element's position, so it assumes (as ops::max_pool_backward documents) the indices
// come from max_pool with the same parameters: an index pointing outside its window is
// not seen. float16/bfloat16 compute in float32.

#include <cstdint>

#include "core/window_geometry.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

constexpr int kDims = kWindowDims;

// The window geometry (core/window_geometry.h) plus the plane sizes.
struct Geometry : WindowGeometry {
    int64_t in_plane = 1, out_plane = 1, window = 1, channels = 1;
};

// Byte strides of an (n, c, *spatial) array, spatial padded to three dims.
struct PlaneStrides {
    int64_t n = 0, c = 0, sp[kDims] = {0, 0, 0};

    __device__ int64_t offset(int64_t plane, int64_t channels, int64_t z, int64_t y, int64_t x) const {
        return (plane / channels) * n + (plane % channels) * c + z * sp[0] + y * sp[1] + x * sp[2];
    }
};

Geometry make_geometry(const Shape& x_shape, const Shape& y_shape, const Shape& ksize, const Shape& stride,
                       const Shape& pad) {
    Geometry g;
    static_cast<WindowGeometry&>(g) = WindowGeometry::pooling(x_shape, y_shape, ksize, stride, pad);
    g.in_plane = g.in_size();
    g.out_plane = g.out_size();
    g.window = g.k_size();
    g.channels = x_shape[1];
    return g;
}

PlaneStrides plane_strides(const Array& a) {
    PlaneStrides s;
    s.n = a.strides()[0];
    s.c = a.strides()[1];
    const int shift = kDims - (a.ndim() - 2);
    for (int i = 2; i < a.ndim(); ++i) s.sp[shift + i - 2] = a.strides()[i];
    return s;
}

// Splits a flat index over a plane of `dims` into (plane, z, y, x).
__device__ inline void unflatten(int64_t i, const int64_t (&dims)[kDims], int64_t plane_size, int64_t& plane,
                                 int64_t (&pos)[kDims]) {
    plane = i / plane_size;
    int64_t r = i % plane_size;
    for (int d = kDims - 1; d >= 0; --d) {
        pos[d] = r % dims[d];
        r /= dims[d];
    }
}

template <class T>
__global__ void pool_kernel(PoolMode mode, const char* x, PlaneStrides xs, T* y, int64_t* indices, Geometry g,
                            int64_t total) {
    using C = ComputeT<T>;
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        int64_t p = 0, o[kDims], lo[kDims], hi[kDims];
        unflatten(i, g.out, g.out_plane, p, o);
        for (int d = 0; d < kDims; ++d) g.window_bounds(d, o[d], lo[d], hi[d]);
        const bool empty = lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2];
        if (mode == PoolMode::kMax) {
            C best = -static_cast<C>(INFINITY);
            int64_t best_index = empty ? -1 : (lo[0] * g.in[1] + lo[1]) * g.in[2] + lo[2];
            for (int64_t z = lo[0]; z < hi[0]; ++z) {
                for (int64_t yy = lo[1]; yy < hi[1]; ++yy) {
                    for (int64_t xx = lo[2]; xx < hi[2]; ++xx) {
                        const C v = to_compute(*reinterpret_cast<const T*>(x + xs.offset(p, g.channels, z, yy, xx)));
                        const bool take = v > best || v != v;  // NaN propagates
                        best_index = take ? (z * g.in[1] + yy) * g.in[2] + xx : best_index;
                        best = take ? v : best;
                    }
                }
            }
            y[i] = from_compute<T>(best);
            if (indices != nullptr) indices[i] = best_index;
        } else {
            C sum = 0;
            for (int64_t z = lo[0]; z < hi[0]; ++z) {
                for (int64_t yy = lo[1]; yy < hi[1]; ++yy) {
                    for (int64_t xx = lo[2]; xx < hi[2]; ++xx) {
                        sum += to_compute(*reinterpret_cast<const T*>(x + xs.offset(p, g.channels, z, yy, xx)));
                    }
                }
            }
            const int64_t n =
                mode == PoolMode::kAverage ? g.window : (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
            y[i] = from_compute<T>(n > 0 ? sum / static_cast<C>(n) : C{0});
        }
    }
}

// Outputs whose window covers input position i along dim d: [first, last].
__device__ inline void covering_outputs(const Geometry& g, int d, int64_t i, int64_t& first, int64_t& last) {
    const int64_t lowest_start = i + g.pad[d] - g.k[d] + 1;  // o * stride >= this
    first = lowest_start <= 0 ? 0 : (lowest_start + g.stride[d] - 1) / g.stride[d];
    last = (i + g.pad[d]) / g.stride[d];
    if (last > g.out[d] - 1) last = g.out[d] - 1;
}

template <class T>
__global__ void pool_backward_kernel(PoolMode mode, const char* gy, PlaneStrides gys, const char* indices,
                                     PlaneStrides is, T* gx, Geometry g, int64_t total) {
    using C = ComputeT<T>;
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        int64_t p = 0, pos[kDims], first[kDims], last[kDims];
        unflatten(i, g.in, g.in_plane, p, pos);
        for (int d = 0; d < kDims; ++d) covering_outputs(g, d, pos[d], first[d], last[d]);
        const int64_t flat = i % g.in_plane;
        C acc = 0;
        for (int64_t oz = first[0]; oz <= last[0]; ++oz) {
            for (int64_t oy = first[1]; oy <= last[1]; ++oy) {
                for (int64_t ox = first[2]; ox <= last[2]; ++ox) {
                    const C v = to_compute(*reinterpret_cast<const T*>(gy + gys.offset(p, g.channels, oz, oy, ox)));
                    if (mode == PoolMode::kMax) {
                        const int64_t at =
                            *reinterpret_cast<const int64_t*>(indices + is.offset(p, g.channels, oz, oy, ox));
                        if (at == flat) acc += v;
                        continue;
                    }
                    int64_t n = g.window;
                    if (mode == PoolMode::kAverageExcludePad) {
                        const int64_t o[kDims] = {oz, oy, ox};
                        n = 1;
                        for (int d = 0; d < kDims; ++d) {
                            int64_t lo = 0, hi = 0;
                            g.window_bounds(d, o[d], lo, hi);
                            n *= hi - lo;
                        }
                    }
                    acc += v / static_cast<C>(n);  // n > 0: the window holds this position
                }
            }
        }
        gx[i] = from_compute<T>(acc);
    }
}

}  // namespace

void CudaKernels::pool(const PoolArgs& args) {
    const int64_t total = args.y.size();
    if (total == 0) return;
    DeviceGuard guard{device_};
    const Geometry g = make_geometry(args.x.shape(), args.y.shape(), args.ksize, args.stride, args.pad);
    const PlaneStrides xs = plane_strides(args.x);
    const auto* x = static_cast<const char*>(args.x.raw_data());
    auto* indices = args.mode == PoolMode::kMax && args.indices.defined()
                        ? static_cast<int64_t*>(args.indices.raw_data())
                        : nullptr;
    visit_float_dtype(args.x.dtype(), [&]<typename T>() {
        pool_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device_)>>>(
            args.mode, x, xs, static_cast<T*>(args.y.raw_data()), indices, g, total);
        check_launch("pool_kernel");
    });
}

void CudaKernels::pool_backward(const PoolBackwardArgs& args) {
    const int64_t total = args.gx.size();
    if (total == 0) return;
    DeviceGuard guard{device_};
    const Geometry g = make_geometry(args.gx.shape(), args.gy.shape(), args.ksize, args.stride, args.pad);
    const PlaneStrides gys = plane_strides(args.gy);
    const bool with_indices = args.mode == PoolMode::kMax;
    const PlaneStrides is = with_indices ? plane_strides(args.indices) : PlaneStrides{};
    const auto* gy = static_cast<const char*>(args.gy.raw_data());
    const auto* indices = with_indices ? static_cast<const char*>(args.indices.raw_data()) : nullptr;
    visit_float_dtype(args.gx.dtype(), [&]<typename T>() {
        pool_backward_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device_)>>>(
            args.mode, gy, gys, indices, is, static_cast<T*>(args.gx.raw_data()), g, total);
        check_launch("pool_backward_kernel");
    });
}

}  // namespace rensa::cuda
