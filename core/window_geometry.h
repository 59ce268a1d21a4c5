#pragma once
// WindowGeometry: the sizes of one convolution or pooling problem, shared by the native
// kernels (core/native/conv_*.cc, kernels_pool.cc) and the CUDA kernels (cuda/conv_direct.cu,
// kernels_pool.cu). See Note [Window geometry].
//
// Note [Window geometry]: spatial dims are padded at the front to three with unit dims (a
// 1-D problem is a 3-D one with two unit dims; pad 0, stride and dilation 1 there), so one
// loop serves 1- to 3-D. Along dim d, output o meets input o * stride - pad + kk * dilate
// through tap kk (input_at; positions outside [0, in) are padding); output_at inverts it for
// the transposed direction. A pooling window is [o * stride - pad, + k) clipped to the input
// (window_bounds). See Note [Convolution layout] in core/kernels.h for the array layouts.

#include <cstdint>

#include "core/host_device.h"
#include "core/shape.h"

namespace rensa {

inline constexpr int kWindowDims = 3;

struct WindowGeometry {
    int nd = 0;  // spatial dims of the call (1 to 3)
    int64_t n = 0, c_in = 0, c_out = 0, groups = 1;
    int64_t in[kWindowDims] = {1, 1, 1}, out[kWindowDims] = {1, 1, 1}, k[kWindowDims] = {1, 1, 1};
    int64_t stride[kWindowDims] = {1, 1, 1}, pad[kWindowDims] = {0, 0, 0}, dilate[kWindowDims] = {1, 1, 1};

    // From x (n, c_in, *in), w (c_out, c_in / groups, *k) and y (n, c_out, *out) shapes.
    static WindowGeometry convolution(const Shape& x, const Shape& w, const Shape& y, const Shape& stride,
                                      const Shape& pad, const Shape& dilate, int64_t groups) {
        WindowGeometry g = spatial(x, y, Shape(w.begin() + 2, w.end()), stride, pad, dilate);
        g.c_out = w[0];
        g.groups = groups;
        return g;
    }
    // From x (n, c, *in) and y (n, c, *out) shapes and the window size.
    static WindowGeometry pooling(const Shape& x, const Shape& y, const Shape& ksize, const Shape& stride,
                                  const Shape& pad) {
        return spatial(x, y, ksize, stride, pad, Shape(static_cast<int>(ksize.size()), 1));
    }

    RENSA_HOST_DEVICE int64_t in_size() const { return in[0] * in[1] * in[2]; }
    RENSA_HOST_DEVICE int64_t out_size() const { return out[0] * out[1] * out[2]; }
    RENSA_HOST_DEVICE int64_t k_size() const { return k[0] * k[1] * k[2]; }
    RENSA_HOST_DEVICE int64_t c_in_group() const { return c_in / groups; }
    RENSA_HOST_DEVICE int64_t c_out_group() const { return c_out / groups; }

    // The input position output o meets through tap kk along dim d (outside [0, in): padding).
    RENSA_HOST_DEVICE int64_t input_at(int d, int64_t o, int64_t kk) const {
        return o * stride[d] - pad[d] + kk * dilate[d];
    }
    // The output position that meets input i through tap kk along dim d, or -1.
    RENSA_HOST_DEVICE int64_t output_at(int d, int64_t i, int64_t kk) const {
        const int64_t t = i + pad[d] - kk * dilate[d];
        if (t < 0 || t % stride[d] != 0) return -1;
        const int64_t o = t / stride[d];
        return o < out[d] ? o : -1;
    }
    // The pooling window of output o along dim d, clipped to the input: [lo, hi).
    RENSA_HOST_DEVICE void window_bounds(int d, int64_t o, int64_t& lo, int64_t& hi) const {
        const int64_t start = o * stride[d] - pad[d];
        lo = clamp(start, in[d]);
        hi = clamp(start + k[d], in[d]);
    }

private:
    RENSA_HOST_DEVICE static int64_t clamp(int64_t v, int64_t hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

    static WindowGeometry spatial(const Shape& x, const Shape& y, const Shape& ksize, const Shape& stride,
                                  const Shape& pad, const Shape& dilate) {
        WindowGeometry g;
        g.nd = static_cast<int>(ksize.size());
        g.n = x[0];
        g.c_in = g.c_out = x[1];
        for (int i = 0; i < g.nd; ++i) {
            const int j = kWindowDims - g.nd + i;
            g.in[j] = x[i + 2];
            g.out[j] = y[i + 2];
            g.k[j] = ksize[i];
            g.stride[j] = stride[i];
            g.pad[j] = pad[i];
            g.dilate[j] = dilate[i];
        }
        return g;
    }
};

}  // namespace rensa
