// Direct convolution kernels (see cuda/conv_direct.h). Spatial dims are padded to three
// with leading 1s, so one kernel per (direction, dtype) serves 1-d to 3-d. Slow but plain:
// only problems cuDNN cannot run come here.

#include <atomic>
#include <cstdint>

#include "core/window_geometry.h"
#include "cuda/check.h"
#include "cuda/conv_direct.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

std::atomic<bool> g_force_direct{false};

// Splits a flat index over (lead, d0, d1, d2) into its parts; returns lead.
__device__ inline int64_t split3(int64_t idx, const int64_t (&dims)[3], int64_t (&pos)[3]) {
    pos[2] = idx % dims[2];
    idx /= dims[2];
    pos[1] = idx % dims[1];
    idx /= dims[1];
    pos[0] = idx % dims[0];
    return idx / dims[0];
}

// y[n, co, o] = sum over ci, kk of x[n, group * cig + ci, o * s - p + kk * d] * w[co, ci, kk] (+ b[co]).
template <class T>
__global__ void forward_kernel(const T* x, const T* w, const T* b, T* y, WindowGeometry g) {
    using Acc = ComputeT<T>;
    const int64_t cig = g.c_in / g.groups, cog = g.c_out / g.groups;
    const int64_t total = g.n * g.c_out * g.out_size();
    for (int64_t idx = grid_index(); idx < total; idx += grid_stride()) {
        int64_t o[3];
        const int64_t lead = split3(idx, g.out, o);
        const int64_t co = lead % g.c_out, n = lead / g.c_out;
        const int64_t c0 = (co / cog) * cig;
        Acc acc = b != nullptr ? to_compute(b[co]) : Acc{0};
        for (int64_t ci = 0; ci < cig; ++ci) {
            const T* xc = x + (n * g.c_in + c0 + ci) * g.in_size();
            const T* wc = w + (co * cig + ci) * g.k_size();
            for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
                const int64_t i0 = g.input_at(0, o[0], k0);
                if (i0 < 0 || i0 >= g.in[0]) continue;
                for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                    const int64_t i1 = g.input_at(1, o[1], k1);
                    if (i1 < 0 || i1 >= g.in[1]) continue;
                    for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                        const int64_t i2 = g.input_at(2, o[2], k2);
                        if (i2 < 0 || i2 >= g.in[2]) continue;
                        acc += to_compute(xc[(i0 * g.in[1] + i1) * g.in[2] + i2]) *
                               to_compute(wc[(k0 * g.k[1] + k1) * g.k[2] + k2]);
                    }
                }
            }
        }
        y[idx] = from_compute<T>(acc);
    }
}

// gx[n, c, i] = sum over co of c's group, kk of gy[n, co, o] * w[co, c - group start, kk]
// where o * s - p + kk * d == i.
template <class T>
__global__ void backward_data_kernel(const T* gy, const T* w, T* gx, WindowGeometry g) {
    using Acc = ComputeT<T>;
    const int64_t cig = g.c_in / g.groups, cog = g.c_out / g.groups;
    const int64_t total = g.n * g.c_in * g.in_size();
    for (int64_t idx = grid_index(); idx < total; idx += grid_stride()) {
        int64_t i[3];
        const int64_t lead = split3(idx, g.in, i);
        const int64_t c = lead % g.c_in, n = lead / g.c_in;
        const int64_t group = c / cig, ci = c % cig;
        Acc acc{0};
        for (int64_t co = group * cog; co < (group + 1) * cog; ++co) {
            const T* gyc = gy + (n * g.c_out + co) * g.out_size();
            const T* wc = w + (co * cig + ci) * g.k_size();
            for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
                const int64_t o0 = g.output_at(0, i[0], k0);
                if (o0 < 0) continue;
                for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                    const int64_t o1 = g.output_at(1, i[1], k1);
                    if (o1 < 0) continue;
                    for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                        const int64_t o2 = g.output_at(2, i[2], k2);
                        if (o2 < 0) continue;
                        acc += to_compute(gyc[(o0 * g.out[1] + o1) * g.out[2] + o2]) *
                               to_compute(wc[(k0 * g.k[1] + k1) * g.k[2] + k2]);
                    }
                }
            }
        }
        gx[idx] = from_compute<T>(acc);
    }
}

// gw[co, ci, kk] = sum over n, o of x[n, group start + ci, o * s - p + kk * d] * gy[n, co, o].
template <class T>
__global__ void backward_filter_kernel(const T* x, const T* gy, T* gw, WindowGeometry g) {
    using Acc = ComputeT<T>;
    const int64_t cig = g.c_in / g.groups, cog = g.c_out / g.groups;
    const int64_t total = g.c_out * cig * g.k_size();
    for (int64_t idx = grid_index(); idx < total; idx += grid_stride()) {
        int64_t kk[3];
        const int64_t lead = split3(idx, g.k, kk);
        const int64_t ci = lead % cig, co = lead / cig;
        const int64_t c = (co / cog) * cig + ci;
        Acc acc{0};
        for (int64_t n = 0; n < g.n; ++n) {
            const T* xc = x + (n * g.c_in + c) * g.in_size();
            const T* gyc = gy + (n * g.c_out + co) * g.out_size();
            for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
                const int64_t i0 = g.input_at(0, o0, kk[0]);
                if (i0 < 0 || i0 >= g.in[0]) continue;
                for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                    const int64_t i1 = g.input_at(1, o1, kk[1]);
                    if (i1 < 0 || i1 >= g.in[1]) continue;
                    for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                        const int64_t i2 = g.input_at(2, o2, kk[2]);
                        if (i2 < 0 || i2 >= g.in[2]) continue;
                        acc += to_compute(xc[(i0 * g.in[1] + i1) * g.in[2] + i2]) *
                               to_compute(gyc[(o0 * g.out[1] + o1) * g.out[2] + o2]);
                    }
                }
            }
        }
        gw[idx] = from_compute<T>(acc);
    }
}

template <class T>
const T* ptr(const Array& a) {
    return a.defined() ? static_cast<const T*>(a.raw_data()) : nullptr;
}

template <class T>
T* out_ptr(const Array& a) {
    return static_cast<T*>(a.raw_data());
}

}  // namespace

void set_force_direct_convolution(bool force) { g_force_direct.store(force); }
bool force_direct_convolution() { return g_force_direct.load(); }

void direct_convolution(int device, const ConvolutionArgs& args) {
    const WindowGeometry g = WindowGeometry::convolution(args.x.shape(), args.w.shape(), args.y.shape(), args.stride,
                                                         args.pad, args.dilate, args.groups);
    const int64_t total = args.y.size();
    visit_float_dtype(args.y.dtype(), [&]<typename T>() {
        forward_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device)>>>(
            ptr<T>(args.x), ptr<T>(args.w), ptr<T>(args.b), out_ptr<T>(args.y), g);
        check_launch("conv_direct forward_kernel");
    });
}

void direct_convolution_backward_data(int device, const ConvolutionBackwardDataArgs& args) {
    const WindowGeometry g = WindowGeometry::convolution(args.gx.shape(), args.w.shape(), args.gy.shape(), args.stride,
                                                         args.pad, args.dilate, args.groups);
    const int64_t total = args.gx.size();
    visit_float_dtype(args.gx.dtype(), [&]<typename T>() {
        backward_data_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device)>>>(
            ptr<T>(args.gy), ptr<T>(args.w), out_ptr<T>(args.gx), g);
        check_launch("conv_direct backward_data_kernel");
    });
}

void direct_convolution_backward_filter(int device, const ConvolutionBackwardFilterArgs& args) {
    const WindowGeometry g = WindowGeometry::convolution(args.x.shape(), args.gw.shape(), args.gy.shape(), args.stride,
                                                         args.pad, args.dilate, args.groups);
    const int64_t total = args.gw.size();
    visit_float_dtype(args.gw.dtype(), [&]<typename T>() {
        backward_filter_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device)>>>(
            ptr<T>(args.x), ptr<T>(args.gy), out_ptr<T>(args.gw), g);
        check_launch("conv_direct backward_filter_kernel");
    });
}

}  // namespace rensa::cuda
