// spatial_transformer_grid and spatial_transformer_sampler (Chainer's array functions, issue
// 23), composed of differentiable functions, so they run on every device and every order of
// derivative is autograd's (Chainer's own backward is first order only).
//
// Note [Bilinear sampling by gathers]: the sampler follows Chainer's CPU path step by step. x
// is padded by one zero pixel on each side, the grid's [-1, 1] coordinates are mapped to the
// padded image (u = (g + 1) (W - 1) / 2 + 1) and clipped to [0, W + 1], so a point outside the
// image blends with the zero border and one farther out reads zeros only. The integer corner
// u0 = clip(floor(u), 0, W) is computed from the array on its device (no host round trip) and
// is a constant of the graph; the four corners are gathered from x as rows of a (B * H' * W',
// C) matrix (a single take along axis 0 with indices b * H' W' + v * W' + u), and the weights
// (u - u0, u0 + 1 - u, ...) are differentiable in the grid. The gradient in the grid is
// therefore Chainer's (the corner difference times the scale (W - 1) / 2, zero where the clip
// is active), and the gradient in x is the scatter-add of the gather.

#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/array.h"
#include "functions/array/detail.h"
#include "functions/connection.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

// The target coordinates of the grid, (H * W, 3): rows (x_t, y_t, 1) with x_t, y_t
// numpy.linspace(-1, 1, n) in theta's dtype, x fastest.
Variable target_coordinates(int64_t h, int64_t w, const Variable& theta) {
    const auto linspace = [](int64_t n, int64_t i) {
        return n > 1 ? -1.0 + 2.0 * static_cast<double>(i) / (n - 1) : -1.0;
    };
    std::vector<double> coords;
    coords.reserve(static_cast<size_t>(h * w * 3));
    for (int64_t i = 0; i < h; ++i) {
        for (int64_t j = 0; j < w; ++j) coords.insert(coords.end(), {linspace(w, j), linspace(h, i), 1.0});
    }
    const Array a = Array::from_vector(coords, {h * w, 3}, theta.device()).astype(theta.dtype());
    return Variable(a, false);
}

// One axis of the sampler: the clipped coordinate in the padded image (differentiable), its
// integer corner and the two weights (of the far and the near corner).
struct AxisSample {
    Array lo;             // int64 corner in [0, size]; lo + 1 is the other one
    Variable w_lo, w_hi;  // weights of lo and lo + 1, shape (B, out_h, out_w, 1)
};

AxisSample sample_axis(const Variable& g, int64_t size) {
    const Variable u =
        clip((g + 1.0) * (static_cast<double>(size - 1) / 2.0) + 1.0, 0.0, static_cast<double>(size + 1));
    const Array lo = ops::clip(ops::floor(u.array()), Scalar(0.0), Scalar(static_cast<double>(size)));
    const Variable frac = u - Variable(lo, false);
    Shape s = u.shape();
    s.push_back(1);
    return {lo.astype(Dtype::kInt64), reshape(1.0 - frac, s), reshape(frac, s)};
}

void check_sampler(const Variable& x, const Variable& grid) {
    expect_float(x, "spatial_transformer_sampler", "x");
    expect_same_dtype(x, grid, "spatial_transformer_sampler", "x", "grid");
    expect_ndim(x, 4, "spatial_transformer_sampler", "x");
    expect_ndim(grid, 4, "spatial_transformer_sampler", "grid");
    RENSA_CHECK(grid.shape()[1] == 2, DimensionError,
                "spatial_transformer_sampler: Expect: grid.shape[1] == 2, Actual: grid.shape ", grid.shape());
    RENSA_CHECK(grid.shape()[0] == x.shape()[0], DimensionError,
                "spatial_transformer_sampler: Expect: x.shape[0] == grid.shape[0], Actual: x.shape ", x.shape(),
                ", grid.shape ", grid.shape());
}

// The sampler in x's dtype (float32 or float64). See Note [Bilinear sampling by gathers].
Variable sample(const Variable& x, const Variable& grid) {
    const int64_t b = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    const int64_t ph = h + 2, pw = w + 2;
    const Variable padded = pad(x, {{0, 0}, {0, 0}, {1, 1}, {1, 1}});
    const Variable rows = reshape(transpose(padded, {0, 2, 3, 1}), {b * ph * pw, c});
    const AxisSample su = sample_axis(get_item(grid, {Slice{}, int64_t{0}}), w);
    const AxisSample sv = sample_axis(get_item(grid, {Slice{}, int64_t{1}}), h);
    const Array base = ops::multiply(ops::arange(b, Dtype::kInt64, x.device()), ph * pw).reshape({b, 1, 1});
    const auto corner = [&](int64_t dv, int64_t du) {
        const Array row = ops::add(ops::multiply(ops::add(sv.lo, dv), pw), ops::add(su.lo, du));
        return array_detail::take_along(rows, ops::add(base, row), 0);  // (B, out_h, out_w, C)
    };
    const Variable y = corner(0, 0) * (su.w_lo * sv.w_lo) + corner(0, 1) * (su.w_hi * sv.w_lo) +
                       corner(1, 0) * (su.w_lo * sv.w_hi) + corner(1, 1) * (su.w_hi * sv.w_hi);
    return transpose(y, {0, 3, 1, 2});
}

bool is_half(Dtype dtype) { return dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16; }

}  // namespace

Variable spatial_transformer_grid(const Variable& theta, std::pair<int64_t, int64_t> output_shape) {
    expect_float(theta, "spatial_transformer_grid", "theta");
    expect_ndim(theta, 3, "spatial_transformer_grid", "theta");
    expect_shape(theta, {theta.shape()[0], 2, 3}, "spatial_transformer_grid", "theta");
    const auto [h, w] = output_shape;
    RENSA_CHECK(h >= 1 && w >= 1, ValueError, "spatial_transformer_grid: Expect: output_shape > 0, Actual: (", h, ", ",
                w, ")");
    const int64_t b = theta.shape()[0];
    // (B * 2, 3) x (3, H * W): grid[b, i] = theta[b, i] . (x_t, y_t, 1).
    const Variable grid = linear(reshape(theta, {b * 2, 3}), target_coordinates(h, w, theta));
    return reshape(grid, {b, 2, h, w});
}

Variable spatial_transformer_sampler(const Variable& x, const Variable& grid) {
    check_sampler(x, grid);
    if (!is_half(x.dtype())) return sample(x, grid);
    // float16 is sampled in float32 (cast is differentiable), as resize_images does.
    return cast(sample(cast(x, Dtype::kFloat32), cast(grid, Dtype::kFloat32)), x.dtype());
}

}  // namespace rensa::functions
