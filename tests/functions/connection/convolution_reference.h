#pragma once
// Naive float64 convolution references for the ops and functions tests: plain loops over
// every (sample, output channel, input channel, output position, kernel offset).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace rensa::testing {

struct ConvReferenceParams {
    Shape stride, pad, dilate;
    int64_t groups = 1;
};

// Visits every multiply of the convolution of x (n, c_in, *in) with w (c_out, c_in / groups,
// *k) into y (n, c_out, *out): fn(flat x index, flat w index, flat y index).
template <class Fn>
void for_each_conv_term(const Shape& xs, const Shape& ws, const Shape& ys, const ConvReferenceParams& p, Fn&& fn) {
    const int nd = xs.size() - 2;
    const int64_t cg = ws[1], cog = ws[0] / p.groups;
    int64_t ksize = 1, osize = 1, isize = 1;
    for (int i = 0; i < nd; ++i) ksize *= ws[i + 2], osize *= ys[i + 2], isize *= xs[i + 2];
    for (int64_t n = 0; n < xs[0]; ++n) {
        for (int64_t co = 0; co < ws[0]; ++co) {
            const int64_t grp = co / cog;
            for (int64_t ci = 0; ci < cg; ++ci) {
                for (int64_t o = 0; o < osize; ++o) {
                    for (int64_t kk = 0; kk < ksize; ++kk) {
                        int64_t xi = 0, orem = o, krem = kk, ostride = osize, kstride = ksize;
                        bool inside = true;
                        for (int d = 0; d < nd; ++d) {
                            ostride /= ys[d + 2];
                            kstride /= ws[d + 2];
                            const int64_t od = orem / ostride, kd = krem / kstride;
                            orem %= ostride;
                            krem %= kstride;
                            const int64_t id = od * p.stride[d] - p.pad[d] + kd * p.dilate[d];
                            inside = inside && id >= 0 && id < xs[d + 2];
                            xi = xi * xs[d + 2] + id;
                        }
                        if (!inside) continue;
                        fn(((n * xs[1]) + grp * cg + ci) * isize + xi, (co * cg + ci) * ksize + kk,
                           (n * ys[1] + co) * osize + o);
                    }
                }
            }
        }
    }
}

// y = conv(x, w) + b (b may be empty).
inline std::vector<double> conv_reference(const std::vector<double>& x, const Shape& xs, const std::vector<double>& w,
                                          const Shape& ws, const std::vector<double>& b, const Shape& ys,
                                          const ConvReferenceParams& p) {
    std::vector<double> y(static_cast<size_t>(shape_size(ys)), 0.0);
    const int64_t osize = shape_size(ys) / std::max<int64_t>(1, ys[0] * ys[1]);
    if (!b.empty()) {
        for (size_t i = 0; i < y.size(); ++i) y[i] = b[static_cast<size_t>(static_cast<int64_t>(i) / osize % ys[1])];
    }
    for_each_conv_term(xs, ws, ys, p, [&](int64_t xi, int64_t wi, int64_t yi) { y[yi] += x[xi] * w[wi]; });
    return y;
}

// gx (xs) = the transpose of conv(., w) applied to gy (ys).
inline std::vector<double> conv_backward_data_reference(const std::vector<double>& gy, const Shape& ys,
                                                        const std::vector<double>& w, const Shape& ws, const Shape& xs,
                                                        const ConvReferenceParams& p) {
    std::vector<double> gx(static_cast<size_t>(shape_size(xs)), 0.0);
    for_each_conv_term(xs, ws, ys, p, [&](int64_t xi, int64_t wi, int64_t yi) { gx[xi] += gy[yi] * w[wi]; });
    return gx;
}

// gw (ws) = d(sum(conv(x, w) * gy)) / dw.
inline std::vector<double> conv_backward_filter_reference(const std::vector<double>& x, const Shape& xs,
                                                          const std::vector<double>& gy, const Shape& ys,
                                                          const Shape& ws, const ConvReferenceParams& p) {
    std::vector<double> gw(static_cast<size_t>(shape_size(ws)), 0.0);
    for_each_conv_term(xs, ws, ys, p, [&](int64_t xi, int64_t wi, int64_t yi) { gw[wi] += x[xi] * gy[yi]; });
    return gw;
}

}  // namespace rensa::testing
