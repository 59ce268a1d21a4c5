// Direct convolution kernels (see cuda/conv_direct.h). Spatial dims are padded to three
// with leading 1s, so one kernel per (direction, dtype) serves 1-d to 3-d. Slow but plain:
// only problems cuDNN cannot run come here.

#include <atomic>
#include <cstdint>

#include "cuda/check.h"
#include "cuda/conv_direct.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

std::atomic<bool> g_force_direct{false};

// Sizes of one problem; spatial arrays hold 3 entries (leading ones are 1 / 0 pad).
struct ConvShape {
    int64_t n = 0, c_in = 0, c_out = 0, groups = 1;
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilate[3] = {1, 1, 1};
};

ConvShape make_shape(const Shape& x, const Shape& w, const Shape& y, const Shape& stride, const Shape& pad,
                     const Shape& dilate, int64_t groups) {
    ConvShape g;
    const int nd = x.size() - 2;
    g.n = x[0];
    g.c_in = x[1];
    g.c_out = w[0];
    g.groups = groups;
    for (int i = 0; i < nd; ++i) {
        const int j = 3 - nd + i;
        g.in[j] = x[i + 2];
        g.out[j] = y[i + 2];
        g.k[j] = w[i + 2];
        g.stride[j] = stride[i];
        g.pad[j] = pad[i];
        g.dilate[j] = dilate[i];
    }
    return g;
}

__device__ inline int64_t in_size(const ConvShape& g) { return g.in[0] * g.in[1] * g.in[2]; }
__device__ inline int64_t out_size(const ConvShape& g) { return g.out[0] * g.out[1] * g.out[2]; }
__device__ inline int64_t k_size(const ConvShape& g) { return g.k[0] * g.k[1] * g.k[2]; }

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
__global__ void forward_kernel(const T* x, const T* w, const T* b, T* y, ConvShape g) {
    using Acc = ComputeT<T>;
    const int64_t cig = g.c_in / g.groups, cog = g.c_out / g.groups;
    const int64_t total = g.n * g.c_out * out_size(g);
    for (int64_t idx = grid_index(); idx < total; idx += grid_stride()) {
        int64_t o[3];
        const int64_t lead = split3(idx, g.out, o);
        const int64_t co = lead % g.c_out, n = lead / g.c_out;
        const int64_t c0 = (co / cog) * cig;
        Acc acc = b != nullptr ? to_compute(b[co]) : Acc{0};
        for (int64_t ci = 0; ci < cig; ++ci) {
            const T* xc = x + (n * g.c_in + c0 + ci) * in_size(g);
            const T* wc = w + (co * cig + ci) * k_size(g);
            for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
                const int64_t i0 = o[0] * g.stride[0] - g.pad[0] + k0 * g.dilate[0];
                if (i0 < 0 || i0 >= g.in[0]) continue;
                for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                    const int64_t i1 = o[1] * g.stride[1] - g.pad[1] + k1 * g.dilate[1];
                    if (i1 < 0 || i1 >= g.in[1]) continue;
                    for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                        const int64_t i2 = o[2] * g.stride[2] - g.pad[2] + k2 * g.dilate[2];
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

// The output position that input position i meets through kernel tap kk in one dim, or -1.
__device__ inline int64_t source(int64_t i, int64_t kk, const ConvShape& g, int d) {
    const int64_t t = i + g.pad[d] - kk * g.dilate[d];
    if (t < 0 || t % g.stride[d] != 0) return -1;
    const int64_t o = t / g.stride[d];
    return o < g.out[d] ? o : -1;
}

// gx[n, c, i] = sum over co of c's group, kk of gy[n, co, o] * w[co, c - group start, kk]
// where o * s - p + kk * d == i.
template <class T>
__global__ void backward_data_kernel(const T* gy, const T* w, T* gx, ConvShape g) {
    using Acc = ComputeT<T>;
    const int64_t cig = g.c_in / g.groups, cog = g.c_out / g.groups;
    const int64_t total = g.n * g.c_in * in_size(g);
    for (int64_t idx = grid_index(); idx < total; idx += grid_stride()) {
        int64_t i[3];
        const int64_t lead = split3(idx, g.in, i);
        const int64_t c = lead % g.c_in, n = lead / g.c_in;
        const int64_t group = c / cig, ci = c % cig;
        Acc acc{0};
        for (int64_t co = group * cog; co < (group + 1) * cog; ++co) {
            const T* gyc = gy + (n * g.c_out + co) * out_size(g);
            const T* wc = w + (co * cig + ci) * k_size(g);
            for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
                const int64_t o0 = source(i[0], k0, g, 0);
                if (o0 < 0) continue;
                for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                    const int64_t o1 = source(i[1], k1, g, 1);
                    if (o1 < 0) continue;
                    for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                        const int64_t o2 = source(i[2], k2, g, 2);
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
__global__ void backward_filter_kernel(const T* x, const T* gy, T* gw, ConvShape g) {
    using Acc = ComputeT<T>;
    const int64_t cig = g.c_in / g.groups, cog = g.c_out / g.groups;
    const int64_t total = g.c_out * cig * k_size(g);
    for (int64_t idx = grid_index(); idx < total; idx += grid_stride()) {
        int64_t kk[3];
        const int64_t lead = split3(idx, g.k, kk);
        const int64_t ci = lead % cig, co = lead / cig;
        const int64_t c = (co / cog) * cig + ci;
        Acc acc{0};
        for (int64_t n = 0; n < g.n; ++n) {
            const T* xc = x + (n * g.c_in + c) * in_size(g);
            const T* gyc = gy + (n * g.c_out + co) * out_size(g);
            for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
                const int64_t i0 = o0 * g.stride[0] - g.pad[0] + kk[0] * g.dilate[0];
                if (i0 < 0 || i0 >= g.in[0]) continue;
                for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                    const int64_t i1 = o1 * g.stride[1] - g.pad[1] + kk[1] * g.dilate[1];
                    if (i1 < 0 || i1 >= g.in[1]) continue;
                    for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                        const int64_t i2 = o2 * g.stride[2] - g.pad[2] + kk[2] * g.dilate[2];
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
    const ConvShape g =
        make_shape(args.x.shape(), args.w.shape(), args.y.shape(), args.stride, args.pad, args.dilate, args.groups);
    const int64_t total = args.y.size();
    visit_float_dtype(args.y.dtype(), [&]<typename T>() {
        forward_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device)>>>(
            ptr<T>(args.x), ptr<T>(args.w), ptr<T>(args.b), out_ptr<T>(args.y), g);
        check_launch("conv_direct forward_kernel");
    });
}

void direct_convolution_backward_data(int device, const ConvolutionBackwardDataArgs& args) {
    const ConvShape g =
        make_shape(args.gx.shape(), args.w.shape(), args.gy.shape(), args.stride, args.pad, args.dilate, args.groups);
    const int64_t total = args.gx.size();
    visit_float_dtype(args.gx.dtype(), [&]<typename T>() {
        backward_data_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device)>>>(
            ptr<T>(args.gy), ptr<T>(args.w), out_ptr<T>(args.gx), g);
        check_launch("conv_direct backward_data_kernel");
    });
}

void direct_convolution_backward_filter(int device, const ConvolutionBackwardFilterArgs& args) {
    const ConvShape g =
        make_shape(args.x.shape(), args.gw.shape(), args.gy.shape(), args.stride, args.pad, args.dilate, args.groups);
    const int64_t total = args.gw.size();
    visit_float_dtype(args.gw.dtype(), [&]<typename T>() {
        backward_filter_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device)>>>(
            ptr<T>(args.x), ptr<T>(args.gy), out_ptr<T>(args.gw), g);
        check_launch("conv_direct backward_filter_kernel");
    });
}

}  // namespace rensa::cuda
