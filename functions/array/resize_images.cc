// resize_images: bilinear or nearest-neighbour interpolation as two separable maps (rows,
// then columns), each a gather (nearest) or a pair of gathers weighted by constants
// (bilinear). Built from differentiable pieces, so every order of derivative is available.

#include <algorithm>
#include <cmath>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

// Chainer's source position of output pixel o along an axis of `in` pixels resized to `out`.
double source_position(int64_t o, int64_t out, int64_t in, const ResizeImagesOptions& options) {
    const auto od = static_cast<double>(o), outd = static_cast<double>(out), ind = static_cast<double>(in);
    if (options.mode == "nearest") return std::min(std::floor(od * ind / outd), ind - 1);
    if (options.align_corners) return out > 1 ? od * (ind - 1) / (outd - 1) : 0.0;
    return std::max((od + 0.5) * ind / outd - 0.5, 0.0);
}

// y[..., o, ...] = x[..., lo[o], ...] * (1 - w[o]) + x[..., hi[o], ...] * w[o] on `axis`.
Variable interpolate_axis(const Variable& x, int axis, int64_t out, const ResizeImagesOptions& options) {
    const int64_t in = x.shape()[axis];
    std::vector<int64_t> lo, hi;
    std::vector<double> w, one_minus_w;
    for (int64_t o = 0; o < out; ++o) {
        const double src = source_position(o, out, in, options);
        const auto l = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
        lo.push_back(l);
        hi.push_back(std::min(l + 1, in - 1));
        w.push_back(src - static_cast<double>(l));
        one_minus_w.push_back(1.0 - w.back());
    }
    const auto indices = [&](const std::vector<int64_t>& v) { return Array::from_vector(v, {out}, x.device()); };
    if (options.mode == "nearest") return array_detail::take_along(x, indices(lo), axis);
    Shape weight_shape(x.ndim() - axis, 1);
    weight_shape[0] = out;
    const auto constant = [&](const std::vector<double>& v) {
        return Variable(Array::from_vector(v, weight_shape, x.device()).astype(x.dtype()), false);
    };
    return array_detail::take_along(x, indices(lo), axis) * constant(one_minus_w) +
           array_detail::take_along(x, indices(hi), axis) * constant(w);
}

void check_resize_images(const Variable& x, int64_t out_h, int64_t out_w, const ResizeImagesOptions& options) {
    expect_float(x, "resize_images", "x");
    expect_ndim(x, 4, "resize_images", "x");
    RENSA_CHECK(options.mode == "bilinear" || options.mode == "nearest", ValueError,
                "resize_images: mode must be 'bilinear' or 'nearest', got '", options.mode, "'");
    RENSA_CHECK(out_h > 0 && out_w > 0, ValueError, "resize_images: output_shape must be positive, got (", out_h, ", ",
                out_w, ")");
    RENSA_CHECK(x.shape()[2] > 0 && x.shape()[3] > 0, DimensionError,
                "resize_images: the input height and width must be positive, got x.shape ", x.shape());
}

}  // namespace

Variable resize_images(const Variable& x, std::pair<int64_t, int64_t> output_shape,
                       const ResizeImagesOptions& options) {
    const auto [out_h, out_w] = output_shape;
    check_resize_images(x, out_h, out_w, options);
    // float16 is interpolated in float32 (cast is differentiable).
    const bool half = x.dtype() == Dtype::kFloat16 || x.dtype() == Dtype::kBFloat16;
    const Variable src = half ? cast(x, Dtype::kFloat32) : x;
    const Variable y = interpolate_axis(interpolate_axis(src, 2, out_h, options), 3, out_w, options);
    return half ? cast(y, x.dtype()) : y;
}

}  // namespace rensa::functions
