#pragma once
// ConvGeometry: the sizes of one convolution with its spatial dims padded at the front
// to three (a 1-D convolution is a 3-D one with two unit dims), shared by the im2col and
// oneDNN paths of kernels_conv.cc. See Note [Convolution layout] in core/kernels.h.

#include <array>
#include <cstdint>

#include "core/shape.h"

namespace rensa::native {

struct ConvGeometry {
    int nd = 2;  // spatial dims of the call (1 to 3)
    int64_t n = 0, c_in = 0, c_out = 0, groups = 1;
    std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, stride{1, 1, 1}, pad{0, 0, 0}, dilate{1, 1, 1};

    // From x (n, c_in, *in), w (c_out, c_in / groups, *k) and y (n, c_out, *out) shapes.
    static ConvGeometry make(const Shape& x, const Shape& w, const Shape& y, const Shape& stride, const Shape& pad,
                             const Shape& dilate, int64_t groups) {
        ConvGeometry g;
        g.nd = x.size() - 2;
        g.n = x[0];
        g.c_in = x[1];
        g.c_out = w[0];
        g.groups = groups;
        for (int i = 0; i < g.nd; ++i) {
            const int j = 3 - g.nd + i;
            g.in[j] = x[i + 2];
            g.out[j] = y[i + 2];
            g.k[j] = w[i + 2];
            g.stride[j] = stride[i];
            g.pad[j] = pad[i];
            g.dilate[j] = dilate[i];
        }
        return g;
    }
    int64_t in_size() const { return in[0] * in[1] * in[2]; }
    int64_t out_size() const { return out[0] * out[1] * out[2]; }
    int64_t k_size() const { return k[0] * k[1] * k[2]; }
    int64_t c_in_group() const { return c_in / groups; }
    int64_t c_out_group() const { return c_out / groups; }
};

}  // namespace rensa::native
