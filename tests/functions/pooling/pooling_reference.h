#pragma once
// Naive float64 references for pooling (any number of spatial dims), written with plain
// loops over every window so they share nothing with the kernels: max (first max, and
// its flat position in the input plane), average (padding counted or not) and the
// replicate-add of unpooling. Used by tests/core/ops/test_pooling.cc too.

#include <cstdint>
#include <limits>
#include <vector>

#include "core/shape.h"
#include "tests/testing/testing.h"

namespace rensa::testing::pooling {

struct Window {
    Shape ksize, stride, pad;
    bool cover_all = false;
};

// Output length, written the way Chainer's docs state it (ceil with cover_all).
inline int64_t out_len(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all) {
    const int64_t span = size + 2 * p - k;
    if (!cover_all) return span >= 0 ? span / s + 1 : 0;
    return span >= 0 ? (span + s - 1) / s + 1 : 0;
}

inline Shape out_shape(const Shape& xs, const Window& w) {
    Shape out{xs[0], xs[1]};
    for (int i = 0; i < w.ksize.size(); ++i)
        out.push_back(out_len(xs[2 + i], w.ksize[i], w.stride[i], w.pad[i], w.cover_all));
    return out;
}

struct PoolRef {
    Shape shape;
    std::vector<double> y;
    std::vector<int64_t> argmax;  // flat position in the input plane; -1 for an empty window
};

// Calls fn(output flat index, plane index, input position in its plane) for every input
// position inside x of every window.
template <class Fn>
void for_each_window(const Shape& xs, const Window& w, Fn&& fn) {
    const Shape out = out_shape(xs, w);
    const int nd = w.ksize.size();
    const Shape in_plane(xs.begin() + 2, xs.end());
    const Shape out_plane(out.begin() + 2, out.end());
    const int64_t planes = xs[0] * xs[1];
    for (int64_t p = 0; p < planes; ++p) {
        for (int64_t o = 0; o < shape_size(out_plane); ++o) {
            const std::vector<int64_t> oi = unravel(o, out_plane);
            for (int64_t k = 0; k < shape_size(w.ksize); ++k) {
                const std::vector<int64_t> ki = unravel(k, w.ksize);
                std::vector<int64_t> ii(static_cast<size_t>(nd));
                bool inside = true;
                for (int d = 0; d < nd; ++d) {
                    ii[d] = oi[d] * w.stride[d] - w.pad[d] + ki[d];
                    inside = inside && ii[d] >= 0 && ii[d] < in_plane[d];
                }
                fn(p * shape_size(out_plane) + o, p, inside ? ravel(ii, in_plane) : -1);
            }
        }
    }
}

inline PoolRef max_pool_ref(const std::vector<double>& x, const Shape& xs, const Window& w) {
    PoolRef r{out_shape(xs, w), {}, {}};
    const int64_t n = shape_size(r.shape), plane = xs[0] * xs[1] == 0 ? 0 : shape_size(xs) / (xs[0] * xs[1]);
    r.y.assign(static_cast<size_t>(n), -std::numeric_limits<double>::infinity());
    r.argmax.assign(static_cast<size_t>(n), -1);
    for_each_window(xs, w, [&](int64_t o, int64_t p, int64_t at) {
        if (at < 0) return;
        const double v = x[static_cast<size_t>(p * plane + at)];
        if (r.argmax[o] < 0 || v > r.y[o]) r.y[o] = v, r.argmax[o] = at;
    });
    return r;
}

inline PoolRef average_pool_ref(const std::vector<double>& x, const Shape& xs, const Window& w, bool exclude_pad) {
    PoolRef r{out_shape(xs, w), {}, {}};
    const int64_t n = shape_size(r.shape), plane = xs[0] * xs[1] == 0 ? 0 : shape_size(xs) / (xs[0] * xs[1]);
    r.y.assign(static_cast<size_t>(n), 0.0);
    std::vector<double> count(static_cast<size_t>(n), 0.0);
    for_each_window(xs, w, [&](int64_t o, int64_t p, int64_t at) {
        if (at >= 0) r.y[o] += x[static_cast<size_t>(p * plane + at)], count[o] += 1;
    });
    for (int64_t o = 0; o < n; ++o) {
        const double div = exclude_pad ? count[o] : static_cast<double>(shape_size(w.ksize));
        r.y[o] = div > 0 ? r.y[o] / div : 0.0;
    }
    return r;
}

// Unpooling: every y position (y_shape) receives the sum of the x values whose window
// covers it; x has the pooled shape of y_shape.
inline std::vector<double> unpool_ref(const std::vector<double>& x, const Shape& y_shape, const Window& w) {
    std::vector<double> y(static_cast<size_t>(shape_size(y_shape)), 0.0);
    const int64_t plane = y_shape[0] * y_shape[1] == 0 ? 0 : shape_size(y_shape) / (y_shape[0] * y_shape[1]);
    for_each_window(y_shape, w, [&](int64_t o, int64_t p, int64_t at) {
        if (at >= 0) y[static_cast<size_t>(p * plane + at)] += x[static_cast<size_t>(o)];
    });
    return y;
}

}  // namespace rensa::testing::pooling
