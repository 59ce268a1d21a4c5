#pragma once
// Float64 references of Chainer 7.8.1's region-of-interest functions, written after its CPU
// code (chainer/functions/pooling/roi_*.py) with naive loops, independent of
// core/roi_geometry.h. x (n, c, h, w), y (r, c, out_h, out_w), row-major vectors.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace rensa::testing::roi {

enum class Kind { kLegacy, kMax, kAverage, kMaxAlign, kAverageAlign };

struct Sizes {
    int64_t n, c, h, w, out_h, out_w;
};

// Python's int(round(v)) of a float64: half to even.
inline int64_t py_round(double v) {
    const double f = std::floor(v), d = v - f;
    if (d > 0.5) return static_cast<int64_t>(f) + 1;
    if (d < 0.5) return static_cast<int64_t>(f);
    return static_cast<int64_t>(f) % 2 == 0 ? static_cast<int64_t>(f) : static_cast<int64_t>(f) + 1;
}

// _roi_pooling_slice: [start, end) of bin p.
inline void slice(int64_t p, double stride, int64_t max_size, int64_t offset, int64_t& start, int64_t& end) {
    start = std::min(std::max(static_cast<int64_t>(std::floor(p * stride)) + offset, int64_t{0}), max_size);
    end = std::min(std::max(static_cast<int64_t>(std::ceil((p + 1) * stride)) + offset, int64_t{0}), max_size);
}

// _get_bounds; false for a skipped sample.
inline bool bounds(double& p, int64_t limit, int64_t& low, int64_t& high) {
    if (p < -1 || p > limit) return false;
    low = static_cast<int64_t>(std::floor(p));
    if (low == limit) low = low - 1;
    high = low + 1;
    if (low <= -1) {
        p = 0;
    } else if (high >= limit) {
        p = static_cast<double>(limit - 1);
    }
    return true;
}

// Calls f(y, x, weight) for each tap of the sample (y, x) kept by Chainer's conditions.
template <class F>
bool bilinear(double y, double x, int64_t h, int64_t w, F&& f) {
    int64_t yl = 0, yh = 0, xl = 0, xh = 0;
    if (!bounds(y, h, yl, yh) || !bounds(x, w, xl, xh)) return false;
    const double ly = y - yl, lx = x - xl, hy = yh - y, hx = xh - x;
    if (hy * hx > 0 && yl >= 0 && xl >= 0) f(yl, xl, hy * hx);
    if (hy * lx > 0 && yl >= 0 && xh <= w - 1) f(yl, xh, hy * lx);
    if (ly * hx > 0 && yh <= h - 1 && xl >= 0) f(yh, xl, ly * hx);
    if (ly * lx > 0 && yh <= h - 1 && xh <= w - 1) f(yh, xh, ly * lx);
    return true;
}

// rois as (y_min, x_min, y_max, x_max) per roi, batch per roi.
struct Rois {
    std::vector<double> corners;
    std::vector<int64_t> batch;
};

inline Rois legacy_rois(const std::vector<double>& rows) {
    Rois r;
    for (size_t i = 0; i + 4 < rows.size(); i += 5) {
        r.batch.push_back(static_cast<int64_t>(rows[i]));
        r.corners.insert(r.corners.end(), {rows[i + 2], rows[i + 1], rows[i + 4], rows[i + 3]});
    }
    return r;
}

inline std::vector<double> forward(Kind kind, const std::vector<double>& x, const Sizes& s, const Rois& rois,
                                   double scale, std::optional<int64_t> ratio_h = {},
                                   std::optional<int64_t> ratio_w = {}) {
    const int64_t r_n = static_cast<int64_t>(rois.batch.size());
    std::vector<double> y;
    for (int64_t r = 0; r < r_n; ++r) {
        const double* c4 = &rois.corners[static_cast<size_t>(r * 4)];
        for (int64_t c = 0; c < s.c; ++c) {
            const double* plane = &x[static_cast<size_t>((rois.batch[r] * s.c + c) * s.h * s.w)];
            for (int64_t ph = 0; ph < s.out_h; ++ph) {
                for (int64_t pw = 0; pw < s.out_w; ++pw) {
                    if (kind == Kind::kMaxAlign || kind == Kind::kAverageAlign) {
                        const double sh = c4[0] * scale, sw = c4[1] * scale;
                        const double rh = std::max(c4[2] * scale - sh, 1.0), rw = std::max(c4[3] * scale - sw, 1.0);
                        const double bh = rh / s.out_h, bw = rw / s.out_w;
                        const int64_t gh = ratio_h ? *ratio_h : static_cast<int64_t>(std::ceil(rh / s.out_h));
                        const int64_t gw = ratio_w ? *ratio_w : static_cast<int64_t>(std::ceil(rw / s.out_w));
                        double sum = 0, best = -std::numeric_limits<double>::infinity();
                        for (int64_t iy = 0; iy < gh; ++iy) {
                            for (int64_t ix = 0; ix < gw; ++ix) {
                                double v = 0;
                                const bool kept = bilinear(
                                    sh + ph * bh + (iy + .5) * bh / gh, sw + pw * bw + (ix + .5) * bw / gw, s.h, s.w,
                                    [&](int64_t yy, int64_t xx, double wt) { v += wt * plane[yy * s.w + xx]; });
                                if (!kept) continue;
                                sum += v;
                                best = std::max(best, v);
                            }
                        }
                        y.push_back(kind == Kind::kMaxAlign ? best : sum / static_cast<double>(gh * gw));
                        continue;
                    }
                    const int64_t extra = kind == Kind::kLegacy ? 1 : 0;
                    const int64_t ymin = py_round(c4[0] * scale), xmin = py_round(c4[1] * scale);
                    const int64_t ymax = py_round(c4[2] * scale), xmax = py_round(c4[3] * scale);
                    const double sh = 1. * std::max(ymax - ymin + extra, int64_t{1}) / s.out_h;
                    const double sw = 1. * std::max(xmax - xmin + extra, int64_t{1}) / s.out_w;
                    int64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
                    slice(ph, sh, s.h, ymin, h0, h1);
                    slice(pw, sw, s.w, xmin, w0, w1);
                    if (h1 <= h0 || w1 <= w0) {
                        y.push_back(kind == Kind::kMax ? -std::numeric_limits<double>::infinity() : 0.0);
                        continue;
                    }
                    double sum = 0, best = -std::numeric_limits<double>::infinity();
                    for (int64_t hh = h0; hh < h1; ++hh) {
                        for (int64_t ww = w0; ww < w1; ++ww) {
                            sum += plane[hh * s.w + ww];
                            best = std::max(best, plane[hh * s.w + ww]);
                        }
                    }
                    y.push_back(kind == Kind::kAverage ? sum / static_cast<double>((h1 - h0) * (w1 - w0)) : best);
                }
            }
        }
    }
    return y;
}

}  // namespace rensa::testing::roi
