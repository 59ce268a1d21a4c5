// spatial_transformer_grid and spatial_transformer_sampler (issue 23) against float64
// references written after Chainer's CPU code, gradients and double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

double linspace(int64_t n, int64_t i) { return n > 1 ? -1.0 + 2.0 * static_cast<double>(i) / (n - 1) : -1.0; }

// grid[b, k, i, j] = sum_m theta[b, k, m] * (x_j, y_i, 1)[m].
Array grid_ref(const Array& theta, int64_t h, int64_t w) {
    const std::vector<double> t = to_doubles(theta);
    const int64_t b = theta.shape()[0];
    std::vector<double> g;
    for (int64_t n = 0; n < b; ++n) {
        for (int64_t k = 0; k < 2; ++k) {
            for (int64_t i = 0; i < h; ++i) {
                for (int64_t j = 0; j < w; ++j) {
                    const double* r = &t[static_cast<size_t>((n * 2 + k) * 3)];
                    g.push_back(r[0] * linspace(w, j) + r[1] * linspace(h, i) + r[2]);
                }
            }
        }
    }
    return f64(g, {b, 2, h, w});
}

// Chainer's _forward: pad by one zero pixel, map [-1, 1] to the padded image, clip, blend
// the four neighbours.
Array sampler_ref(const Array& x, const Array& grid) {
    const std::vector<double> xv = to_doubles(x), gv = to_doubles(grid);
    const int64_t B = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    const int64_t oh = grid.shape()[2], ow = grid.shape()[3];
    const auto pixel = [&](int64_t b, int64_t c, int64_t v, int64_t u) {  // padded coordinates
        if (v < 1 || v > H || u < 1 || u > W) return 0.0;
        return xv[static_cast<size_t>(((b * C + c) * H + v - 1) * W + u - 1)];
    };
    std::vector<double> y;
    for (int64_t b = 0; b < B; ++b) {
        for (int64_t c = 0; c < C; ++c) {
            for (int64_t p = 0; p < oh * ow; ++p) {
                double u = (gv[static_cast<size_t>((b * 2) * oh * ow + p)] + 1) * (W - 1) / 2 + 1;
                double v = (gv[static_cast<size_t>((b * 2 + 1) * oh * ow + p)] + 1) * (H - 1) / 2 + 1;
                u = std::clamp(u, 0.0, static_cast<double>(W + 1));
                v = std::clamp(v, 0.0, static_cast<double>(H + 1));
                const auto u0 = std::min(static_cast<int64_t>(std::floor(u)), W);
                const auto v0 = std::min(static_cast<int64_t>(std::floor(v)), H);
                const double fu = u - static_cast<double>(u0), fv = v - static_cast<double>(v0);
                y.push_back(pixel(b, c, v0, u0) * (1 - fu) * (1 - fv) + pixel(b, c, v0, u0 + 1) * fu * (1 - fv) +
                            pixel(b, c, v0 + 1, u0) * (1 - fu) * fv + pixel(b, c, v0 + 1, u0 + 1) * fu * fv);
            }
        }
    }
    return f64(y, {B, C, oh, ow});
}

}  // namespace

TEST_CASE("spatial_transformer_grid", "[functions][array]") {
    for (const auto& [h, w] : std::vector<std::pair<int64_t, int64_t>>{{4, 5}, {1, 3}}) {
        check_function({
            .name = "spatial_transformer_grid",
            .inputs = {{.shape = {3, 2, 3}}},
            .func =
                [h, w](const Vars& xs) {
                    return Vars{F::spatial_transformer_grid(xs[0], {h, w})};
                },
            .reference = [h, w](const Arrays& xs) { return Arrays{grid_ref(xs[0], h, w)}; },
        });
    }
}

TEST_CASE("spatial_transformer_sampler", "[functions][array]") {
    // x is (2, 3, 4, 5): the padded coordinate u = (g + 1) * 2 + 1 is an integer (a pixel
    // boundary, where the gradient in the grid jumps) at g = k / 2 - 1, v = (g + 1) * 1.5 + 1
    // at g = 2k / 3 - 1. Grid values reach past [-1, 1], so the zero border and the clipped
    // region are sampled too.
    std::vector<double> kinks;
    for (int k = -1; k <= 6; ++k) kinks.push_back(k / 2.0 - 1.0);
    for (int k = -1; k <= 5; ++k) kinks.push_back(2.0 * k / 3.0 - 1.0);
    check_function({
        .name = "spatial_transformer_sampler",
        .inputs = {{.shape = {2, 3, 4, 5}}, {.shape = {2, 2, 3, 4}, .values = away_from(kinks, -1.9, 1.9, 0.04)}},
        .func = [](const Vars& xs) { return Vars{F::spatial_transformer_sampler(xs[0], xs[1])}; },
        .reference = [](const Arrays& xs) { return Arrays{sampler_ref(xs[0], xs[1])}; },
    });
}

TEST_CASE("spatial_transformer_sampler: the identity grid gives x back", "[functions][array]") {
    const Array xa = Array::from_vector<double>({1, 2, 3, 4, 5, 6}, {1, 1, 2, 3});
    const Variable theta(Array::from_vector<double>({1, 0, 0, 0, 1, 0}, {1, 2, 3}));
    const Variable y = F::spatial_transformer_sampler(Variable(xa), F::spatial_transformer_grid(theta, {2, 3}));
    check_allclose(y.array(), {1, 2, 3, 4, 5, 6}, {1, 1, 2, 3}, {1e-12, 1e-12});
    // Shifted by one pixel to the right (x_s = x_t + 1): the last column reads the zero border.
    const Variable shift(Array::from_vector<double>({1, 0, 1, 0, 1, 0}, {1, 2, 3}));
    const Variable ys = F::spatial_transformer_sampler(Variable(xa), F::spatial_transformer_grid(shift, {2, 3}));
    check_allclose(ys.array(), {2, 3, 0, 5, 6, 0}, {1, 1, 2, 3}, {1e-12, 1e-12});
}

TEST_CASE("spatial_transformer: errors", "[functions][array]") {
    const Variable theta(ops::zeros({2, 2, 3}));
    CHECK_THROWS_WITH(F::spatial_transformer_grid(Variable(ops::zeros({2, 3, 3})), {2, 2}),
                      Catch::Contains("spatial_transformer_grid: Expect: theta.shape"));
    CHECK_THROWS_AS(F::spatial_transformer_grid(Variable(ops::zeros({2, 6})), {2, 2}), DimensionError);
    CHECK_THROWS_AS(F::spatial_transformer_grid(Variable(ops::zeros({2, 2, 3}, Dtype::kInt32)), {2, 2}), DtypeError);
    CHECK_THROWS_AS(F::spatial_transformer_grid(theta, {0, 2}), ValueError);
    const Variable x(ops::zeros({2, 1, 3, 3}));
    CHECK_THROWS_WITH(F::spatial_transformer_sampler(x, Variable(ops::zeros({2, 3, 2, 2}))),
                      Catch::Contains("spatial_transformer_sampler: Expect: grid.shape[1] == 2"));
    CHECK_THROWS_WITH(F::spatial_transformer_sampler(x, Variable(ops::zeros({1, 2, 2, 2}))),
                      Catch::Contains("spatial_transformer_sampler: Expect: x.shape[0] == grid.shape[0]"));
    CHECK_THROWS_AS(F::spatial_transformer_sampler(x, Variable(ops::zeros({2, 2, 2, 2}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::spatial_transformer_sampler(Variable(ops::zeros({2, 3, 3})), Variable(ops::zeros({2, 2, 2}))),
                    DimensionError);
    CHECK(F::spatial_transformer_sampler(x, Variable(ops::zeros({2, 2, 4, 5}))).shape() == Shape{2, 1, 4, 5});
}
