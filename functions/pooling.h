#pragma once
// Chainer's pooling functions (F::...). See functions/functions.h for the family list.
// x is (n, c, *spatial) and floating (DtypeError otherwise); a wrong rank or an output
// size below 1 throws DimensionError, a non-positive ksize/stride or negative pad
// ValueError. Windows start at o * stride - pad; outputs keep x's dtype.
//   F::max_pooling_2d(x, 2);                                     // ksize 2, stride 2, cover_all
//   F::max_pooling_2d(x, {3, 3}, {.stride = 2, .pad = 1, .cover_all = false});

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

#include "autograd/variable.h"

namespace rensa::functions {

// Chainer's "int or tuple of ints" for per-dimension sizes: one value for every spatial
// dim (`2`), one per dim (`{2, 3}`), or unset (`{}`, Chainer's None where allowed).
class PoolingSize {
public:
    PoolingSize() = default;
    PoolingSize(int64_t value) : values_{value}, scalar_{true} {}  // NOLINT: implicit like Chainer's int
    PoolingSize(std::initializer_list<int64_t> values) : values_(values) {}
    PoolingSize(const Shape& values) : values_{values} {}  // NOLINT: implicit like a tuple

    bool is_set() const { return !values_.empty(); }
    // One entry per spatial dim; throws ValueError when the count does not match.
    Shape expand(int ndim, std::string_view op, std::string_view name) const;

private:
    Shape values_;
    bool scalar_ = false;
};

struct MaxPoolingOptions {
    PoolingSize stride{};  // unset: ksize
    PoolingSize pad = 0;
    bool cover_all = true;  // one more output where the last window is partial (Chainer's default)
};

struct AveragePoolingOptions {
    PoolingSize stride{};  // unset: ksize
    PoolingSize pad = 0;
    // 0: padding counts as zeros (divide by the window size); nullopt (Chainer's None):
    // padding is left out of the divisor. Other values throw ValueError.
    std::optional<double> pad_value = 0.0;
};

struct UnpoolingOptions {
    PoolingSize stride{};  // unset: ksize
    PoolingSize pad = 0;
    PoolingSize outsize{};  // one size per spatial dim ((out_h, out_w)); unset: Chainer's get_deconv_outsize
    bool cover_all = true;
};

// Spatial max pooling of x (n, c, h, w). Double-differentiable (the gradient routes to
// the first max of each window; its backward gathers by the same indexes).
[[nodiscard]] Variable max_pooling_2d(const Variable& x, PoolingSize ksize, const MaxPoolingOptions& options = {});
// max_pooling_2d that also returns the argmax indexes Chainer's MaxPooling2D retains: int64
// of y's shape, the flat position ky * kw + kx of each max inside its window (counting
// padded positions), the `indexes` argument of upsampling_2d.
[[nodiscard]] std::pair<Variable, Array> max_pooling_2d_with_indexes(const Variable& x, PoolingSize ksize,
                                                                     const MaxPoolingOptions& options = {});
// N-d max pooling over the x.ndim - 2 (1 to 3) trailing dims. Double-differentiable.
[[nodiscard]] Variable max_pooling_nd(const Variable& x, PoolingSize ksize, const MaxPoolingOptions& options = {});

// Spatial average pooling of x (n, c, h, w); ksize = (h, w) with no pad is a global average.
// Linear, so differentiable any number of times.
[[nodiscard]] Variable average_pooling_2d(const Variable& x, PoolingSize ksize,
                                          const AveragePoolingOptions& options = {});
// N-d average pooling over the x.ndim - 2 (1 to 3) trailing dims.
[[nodiscard]] Variable average_pooling_nd(const Variable& x, PoolingSize ksize,
                                          const AveragePoolingOptions& options = {});

// Inverse of pooling by replication: each x (n, c, h, w) element fills its window of y
// (overlaps add up); y's size is `outsize` or get_deconv_outsize. outsize must pool back
// to x's size (DimensionError). Linear, differentiable any number of times.
[[nodiscard]] Variable unpooling_2d(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options = {});
// unpooling_2d over the x.ndim - 2 trailing dims (1 to 3: x.ndim 3 to 5, DimensionError
// otherwise; Chainer has no limit, rensa's pooling kernels have), with Chainer's outsize and
// cover_all. unpooling_1d / unpooling_3d want x.ndim 3 / 5.
[[nodiscard]] Variable unpooling_nd(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options = {});
[[nodiscard]] Variable unpooling_1d(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options = {});
[[nodiscard]] Variable unpooling_3d(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options = {});
// Inverse of max pooling: each x element goes to the position `indexes` (from
// max_pooling_2d_with_indexes with the same ksize/stride/pad/cover_all, x's shape) names in
// its window; other positions are 0, overlaps add up. Indexes outside [0, kh * kw) throw
// IndexError; positions in the padding are dropped. Linear, differentiable any number of times.
[[nodiscard]] Variable upsampling_2d(const Variable& x, const Array& indexes, PoolingSize ksize,
                                     const UnpoolingOptions& options = {});

// --- Chainer's spatial_pyramid_pooling_2d (issue 21).
enum class PyramidPooling { kMax, kAverage };
// Level l (0 <= l < pyramid_height) pools x (n, c, h, w) with ksize ceil(h / 2^l) x
// ceil(w / 2^l), pad (ksize * 2^l - size) / 2 and stride = ksize (max pooling with cover_all,
// as Chainer; average pooling counts the padding as zeros). Returns (n, c * sum_l h_l w_l, 1,
// 1), the flattened levels concatenated along axis 1, h_l x w_l being level l's pooled size:
// 2^l x 2^l for max pooling when h, w >= 2^(pyramid_height - 1). pyramid_height < 1 throws
// ValueError. Windows that hold padding only (x small for its pyramid) give -inf for max and
// 0 for average, as in Chainer. Double-differentiable. Chainer 7.8.1 has max only; average is the rensa
// extension the Python package always offered.
[[nodiscard]] Variable spatial_pyramid_pooling_2d(const Variable& x, int64_t pyramid_height,
                                                  PyramidPooling pooling = PyramidPooling::kMax);
// pooling "max" or "average" (Chainer's strings); any other value throws ValueError.
[[nodiscard]] Variable spatial_pyramid_pooling_2d(const Variable& x, int64_t pyramid_height, std::string_view pooling);

// --- Region-of-interest pooling (Chainer's roi_* functions; Note [ROI geometry] in
// core/roi_geometry.h). x (n, c, h, w) floating; rois floating (Chainer requires x's dtype;
// any float dtype is read exactly); y (r, c, outh, outw) in x's dtype. Differentiable once in x (rois and roi_indices
// get no gradient); their backward throws NotImplementedError when differentiated again, as in Chainer. Bad dtypes
// throw DtypeError, bad shapes DimensionError, a batch index outside [0, n) IndexError, an out size, spatial_scale or
// sampling ratio below 1 (> 0 for the scale) ValueError.

// Chainer's old roi_pooling_2d: rois (r, 5) rows (batch_index, x_min, y_min, x_max, y_max);
// the max of each bin (0 for an empty bin).
[[nodiscard]] Variable roi_pooling_2d(const Variable& x, const Variable& rois, int64_t outh, int64_t outw,
                                      double spatial_scale);
// rois (r, 4) rows (y_min, x_min, y_max, x_max) in x's scale before spatial_scale; roi_indices
// int32 (r,) the batch index of each roi; outsize an int or (outh, outw). Max (-inf for an
// empty bin) / average (0 for an empty bin) over each rounded bin.
[[nodiscard]] Variable roi_max_pooling_2d(const Variable& x, const Variable& rois, const Variable& roi_indices,
                                          PoolingSize outsize, double spatial_scale);
[[nodiscard]] Variable roi_average_pooling_2d(const Variable& x, const Variable& rois, const Variable& roi_indices,
                                              PoolingSize outsize, double spatial_scale);
// Chainer's sampling_ratio: samples per bin along (h, w); an unset entry (None) samples
// ceil(roi size / out size) per roi.
using RoiSamplingRatio = std::array<std::optional<int64_t>, 2>;
// RoIAlign: the max / average of bilinearly interpolated samples on a grid in each bin.
[[nodiscard]] Variable roi_max_align_2d(const Variable& x, const Variable& rois, const Variable& roi_indices,
                                        PoolingSize outsize, double spatial_scale,
                                        RoiSamplingRatio sampling_ratio = {});
[[nodiscard]] Variable roi_average_align_2d(const Variable& x, const Variable& rois, const Variable& roi_indices,
                                            PoolingSize outsize, double spatial_scale,
                                            RoiSamplingRatio sampling_ratio = {});

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
