#pragma once
// The geometry of region-of-interest pooling, shared by the native loops
// (core/native/kernels_roi.cc) and the CUDA kernels (cuda/kernels_roi.cu), so both compute
// the same bins and samples.
//
// Note [ROI geometry]: the formulas are Chainer 7.8.1's CPU code (chainer/functions/pooling/
// roi_*.py), which computes coordinates in float64 (a numpy float32 scalar times a Python
// float is a float64), so they are in double here on every device and for every dtype.
// - Pooling modes (kLegacyMax, kMax, kAverage): the roi's corners times spatial_scale are
//   rounded with Python's round (half to even: rint) to integers; the roi spans
//   end - start positions (kLegacyMax, roi_pooling_2d: end - start + 1), at least 1. Bin
//   p covers [floor(p * size / out), ceil((p + 1) * size / out)) shifted by the start and
//   clipped to the input; an empty bin gives 0 (kLegacyMax, kAverage) or -inf (kMax) and
//   argmax -1. Chainer's GPU kernels round half away from zero and compute bins in the
//   dtype: they can differ from its CPU by one position at exact halves; we follow the CPU.
//   roi_pooling_2d's backward (CPU and GPU) only reaches positions inside the rounded roi:
//   a malformed roi (max < min) gets a value forward but passes no gradient back.
// - Align modes: no rounding; the roi spans max(end - start, 1) (scaled, real), each bin is
//   sampled on a grid_h x grid_w grid (sampling_ratio, or ceil(roi size / out) per roi when
//   None) at start + p * bin + (i + 0.5) * bin / grid, bilinearly interpolated with
//   Chainer's _get_bounds: a sample below -1 or above the size is skipped (it still counts
//   in the average's divisor); one in [-1, 0) reads row 0 with weight 1 (low = -1, high =
//   0); one at or past size - 1 reads the last row. A tap is read only where its weight is
//   positive and it lies inside the input. The max takes the largest interpolated sample
//   (-inf and index -1 when every sample is skipped).

#include <cmath>
#include <cstdint>

#include "core/host_device.h"
#include "core/kernels.h"

namespace rensa {

RENSA_HOST_DEVICE inline int64_t roi_clamp(int64_t v, int64_t size) { return v < 0 ? 0 : (v > size ? size : v); }
// Python's round of a float64 (half to even) as an integer.
RENSA_HOST_DEVICE inline int64_t roi_round(double v) { return static_cast<int64_t>(rint(v)); }

// One roi of the pooling modes: its rounded start and the bin sizes.
struct RoiPoolBins {
    int64_t start_h = 0, start_w = 0;
    double bin_h = 1.0, bin_w = 1.0;
};

// corners = (y_min, x_min, y_max, x_max), already read from either roi layout.
RENSA_HOST_DEVICE inline RoiPoolBins roi_pool_bins(RoiMode mode, const double (&corners)[4], double scale,
                                                   int64_t out_h, int64_t out_w) {
    const int64_t y0 = roi_round(corners[0] * scale), x0 = roi_round(corners[1] * scale);
    const int64_t y1 = roi_round(corners[2] * scale), x1 = roi_round(corners[3] * scale);
    const int64_t extra = mode == RoiMode::kLegacyMax ? 1 : 0;
    const int64_t h = y1 - y0 + extra, w = x1 - x0 + extra;
    RoiPoolBins b;
    b.start_h = y0;
    b.start_w = x0;
    b.bin_h = static_cast<double>(h < 1 ? 1 : h) / static_cast<double>(out_h);
    b.bin_w = static_cast<double>(w < 1 ? 1 : w) / static_cast<double>(out_w);
    return b;
}

// Bin p along one dim: [lo, hi) clipped to [0, size].
RENSA_HOST_DEVICE inline void roi_bin_range(int64_t p, double bin, int64_t start, int64_t size, int64_t& lo,
                                            int64_t& hi) {
    lo = roi_clamp(static_cast<int64_t>(floor(static_cast<double>(p) * bin)) + start, size);
    hi = roi_clamp(static_cast<int64_t>(ceil(static_cast<double>(p + 1) * bin)) + start, size);
}

// One roi of the align modes: real start, bin sizes and the sampling grid.
struct RoiAlignBins {
    double start_h = 0, start_w = 0, bin_h = 1, bin_w = 1;
    int64_t grid_h = 1, grid_w = 1;
};

RENSA_HOST_DEVICE inline RoiAlignBins roi_align_bins(const double (&corners)[4], double scale, int64_t out_h,
                                                     int64_t out_w, int64_t sampling_h, int64_t sampling_w) {
    RoiAlignBins b;
    b.start_h = corners[0] * scale;
    b.start_w = corners[1] * scale;
    const double h = fmax(corners[2] * scale - b.start_h, 1.0), w = fmax(corners[3] * scale - b.start_w, 1.0);
    b.bin_h = h / static_cast<double>(out_h);
    b.bin_w = w / static_cast<double>(out_w);
    b.grid_h = sampling_h > 0 ? sampling_h : static_cast<int64_t>(ceil(h / static_cast<double>(out_h)));
    b.grid_w = sampling_w > 0 ? sampling_w : static_cast<int64_t>(ceil(w / static_cast<double>(out_w)));
    return b;
}

// Sample i of bin p along one dim (Chainer's order of operations).
RENSA_HOST_DEVICE inline double roi_sample(double start, int64_t p, double bin, int64_t i, int64_t grid) {
    return start + static_cast<double>(p) * bin + (static_cast<double>(i) + 0.5) * bin / static_cast<double>(grid);
}

// Chainer's _get_bounds: false when the sample is skipped; else the clamped position and
// its two neighbours (low may be -1, high may be size).
RENSA_HOST_DEVICE inline bool roi_bounds(double& p, int64_t size, int64_t& low, int64_t& high) {
    if (p < -1.0 || p > static_cast<double>(size)) return false;
    low = static_cast<int64_t>(floor(p));
    if (low == size) low -= 1;
    high = low + 1;
    if (low <= -1) {
        p = 0.0;
    } else if (high >= size) {
        p = static_cast<double>(size - 1);
    }
    return true;
}

// The (at most four) taps of a bilinear sample: plane positions and weights, in Chainer's
// order (low/low, low/high, high/low, high/high); only taps with a positive weight inside
// the input are kept.
struct RoiTaps {
    int count = 0;
    int64_t pos[4] = {0, 0, 0, 0};
    double weight[4] = {0, 0, 0, 0};
};

// false when the sample (y, x) is skipped.
RENSA_HOST_DEVICE inline bool roi_taps(double y, double x, int64_t height, int64_t width, RoiTaps& t) {
    int64_t y_low = 0, y_high = 0, x_low = 0, x_high = 0;
    if (!roi_bounds(y, height, y_low, y_high) || !roi_bounds(x, width, x_low, x_high)) return false;
    const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
    const double hy = static_cast<double>(y_high) - y, hx = static_cast<double>(x_high) - x;
    const int64_t ys[4] = {y_low, y_low, y_high, y_high}, xs[4] = {x_low, x_high, x_low, x_high};
    const double ws[4] = {hy * hx, hy * lx, ly * hx, ly * lx};
    t.count = 0;
    for (int k = 0; k < 4; ++k) {
        if (ws[k] > 0 && ys[k] >= 0 && ys[k] <= height - 1 && xs[k] >= 0 && xs[k] <= width - 1) {
            t.pos[t.count] = ys[k] * width + xs[k];
            t.weight[t.count] = ws[k];
            ++t.count;
        }
    }
    return true;
}

// Values per row of `rois`: kLegacyMax rows are (batch, x_min, y_min, x_max, y_max).
RENSA_HOST_DEVICE inline int64_t roi_row_size(RoiMode mode) { return mode == RoiMode::kLegacyMax ? 5 : 4; }

// A roi's corners (y_min, x_min, y_max, x_max) from its row of `rois` read as double.
RENSA_HOST_DEVICE inline void roi_corners(RoiMode mode, const double* row, double (&corners)[4]) {
    if (mode == RoiMode::kLegacyMax) {
        corners[0] = row[2], corners[1] = row[1], corners[2] = row[4], corners[3] = row[3];
    } else {
        corners[0] = row[0], corners[1] = row[1], corners[2] = row[2], corners[3] = row[3];
    }
}

// What every bin of one call shares.
struct RoiBinParams {
    RoiMode mode = RoiMode::kMax;
    double spatial_scale = 1.0;
    int64_t height = 0, width = 0, out_h = 1, out_w = 1, sampling_h = 0, sampling_w = 0;
};

RENSA_HOST_DEVICE inline bool roi_takes_max(double v, double best) { return v > best || v != v; }  // NaN propagates

// Bin (ph, pw) of a pooling mode; load(pos) reads the roi's (h, w) plane of x as double.
template <class Load>
RENSA_HOST_DEVICE inline double roi_pool_bin(const RoiBinParams& p, const RoiPoolBins& b, int64_t ph, int64_t pw,
                                             const Load& load, int64_t& index) {
    int64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
    roi_bin_range(ph, b.bin_h, b.start_h, p.height, h0, h1);
    roi_bin_range(pw, b.bin_w, b.start_w, p.width, w0, w1);
    index = -1;
    if (h1 <= h0 || w1 <= w0) return p.mode == RoiMode::kMax ? -static_cast<double>(INFINITY) : 0.0;
    if (p.mode == RoiMode::kAverage) {
        double sum = 0;
        for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) sum += load(h * p.width + w);
        }
        return sum / static_cast<double>((h1 - h0) * (w1 - w0));
    }
    index = h0 * p.width + w0;  // the first max, as numpy's argmax
    double best = load(index);
    for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) {
            const double v = load(h * p.width + w);
            if (roi_takes_max(v, best)) best = v, index = h * p.width + w;
        }
    }
    return best;
}

// Bin (ph, pw) of an align mode: the average of its samples, or their max and its sample index.
template <class Load>
RENSA_HOST_DEVICE inline double roi_align_bin(const RoiBinParams& p, const RoiAlignBins& b, int64_t ph, int64_t pw,
                                              const Load& load, int64_t& index) {
    double sum = 0, best = -static_cast<double>(INFINITY);
    index = -1;
    for (int64_t iy = 0; iy < b.grid_h; ++iy) {
        const double y = roi_sample(b.start_h, ph, b.bin_h, iy, b.grid_h);
        for (int64_t ix = 0; ix < b.grid_w; ++ix) {
            RoiTaps t;
            if (!roi_taps(y, roi_sample(b.start_w, pw, b.bin_w, ix, b.grid_w), p.height, p.width, t)) continue;
            double v = 0;
            for (int k = 0; k < t.count; ++k) v += t.weight[k] * load(t.pos[k]);
            sum += v;
            if (roi_takes_max(v, best)) best = v, index = iy * b.grid_w + ix;
        }
    }
    return p.mode == RoiMode::kMaxAlign ? best : sum / static_cast<double>(b.grid_h * b.grid_w);
}

RENSA_HOST_DEVICE inline bool roi_is_align(RoiMode mode) {
    return mode == RoiMode::kMaxAlign || mode == RoiMode::kAverageAlign;
}

// The value of bin (ph, pw) of the roi with `corners`, and the max modes' index.
template <class Load>
RENSA_HOST_DEVICE inline double roi_bin_forward(const RoiBinParams& p, const double (&corners)[4], int64_t ph,
                                                int64_t pw, const Load& load, int64_t& index) {
    if (roi_is_align(p.mode)) {
        const RoiAlignBins b = roi_align_bins(corners, p.spatial_scale, p.out_h, p.out_w, p.sampling_h, p.sampling_w);
        return roi_align_bin(p, b, ph, pw, load, index);
    }
    return roi_pool_bin(p, roi_pool_bins(p.mode, corners, p.spatial_scale, p.out_h, p.out_w), ph, pw, load, index);
}

// Calls add(pos, value) for every share of the gradient g of bin (ph, pw) in the roi's plane
// of gx; index is the forward's (max modes).
template <class Add>
RENSA_HOST_DEVICE inline void roi_bin_backward(const RoiBinParams& p, const double (&corners)[4], int64_t ph,
                                               int64_t pw, double g, int64_t index, const Add& add) {
    if (p.mode == RoiMode::kMax) {
        if (index >= 0) add(index, g);
        return;
    }
    if (p.mode == RoiMode::kLegacyMax) {  // only a max inside the rounded roi (none for a malformed roi)
        const int64_t h = index / p.width, w = index % p.width;
        const bool in_roi =
            h >= roi_round(corners[0] * p.spatial_scale) && h <= roi_round(corners[2] * p.spatial_scale) &&
            w >= roi_round(corners[1] * p.spatial_scale) && w <= roi_round(corners[3] * p.spatial_scale);
        if (index >= 0 && in_roi) add(index, g);
        return;
    }
    if (p.mode == RoiMode::kAverage) {
        const RoiPoolBins b = roi_pool_bins(p.mode, corners, p.spatial_scale, p.out_h, p.out_w);
        int64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
        roi_bin_range(ph, b.bin_h, b.start_h, p.height, h0, h1);
        roi_bin_range(pw, b.bin_w, b.start_w, p.width, w0, w1);
        if (h1 <= h0 || w1 <= w0) return;
        const double share = g / static_cast<double>(h1 - h0) / static_cast<double>(w1 - w0);
        for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) add(h * p.width + w, share);
        }
        return;
    }
    const RoiAlignBins b = roi_align_bins(corners, p.spatial_scale, p.out_h, p.out_w, p.sampling_h, p.sampling_w);
    const bool max = p.mode == RoiMode::kMaxAlign;
    if (max && index < 0) return;
    const double scale = max ? g : g / static_cast<double>(b.grid_h * b.grid_w);
    const int64_t iy0 = max ? index / b.grid_w : 0, iy1 = max ? iy0 + 1 : b.grid_h;
    const int64_t ix0 = max ? index % b.grid_w : 0, ix1 = max ? ix0 + 1 : b.grid_w;
    for (int64_t iy = iy0; iy < iy1; ++iy) {
        const double y = roi_sample(b.start_h, ph, b.bin_h, iy, b.grid_h);
        for (int64_t ix = ix0; ix < ix1; ++ix) {
            RoiTaps t;
            if (!roi_taps(y, roi_sample(b.start_w, pw, b.bin_w, ix, b.grid_w), p.height, p.width, t)) continue;
            for (int k = 0; k < t.count; ++k) add(t.pos[k], scale * t.weight[k]);
        }
    }
}

}  // namespace rensa
