// layer_normalization, group_normalization, local_response_normalization and normalize:
// forward against float64 references, gradients, double backprop where Chainer has it, errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "autograd/grad.h"
#include "core/ops/creation.h"
#include "functions/normalization.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Standardizes each of `groups` consecutive blocks of `block` values (biased variance).
std::vector<double> standardize_blocks(const std::vector<double>& v, int64_t block, double eps) {
    std::vector<double> out(v.size());
    for (size_t b = 0; b < v.size(); b += static_cast<size_t>(block)) {
        double mean = 0, var = 0;
        for (int64_t i = 0; i < block; ++i) mean += v[b + i] / static_cast<double>(block);
        for (int64_t i = 0; i < block; ++i) var += (v[b + i] - mean) * (v[b + i] - mean) / static_cast<double>(block);
        for (int64_t i = 0; i < block; ++i) out[b + i] = (v[b + i] - mean) / std::sqrt(var + eps);
    }
    return out;
}

}  // namespace

TEST_CASE("layer_normalization", "[functions][normalization]") {
    check_function({
        .name = "layer_normalization",
        .inputs = {{.shape = {3, 5}}, {.shape = {5}, .low = 0.5, .high = 1.5}, {.shape = {5}}},
        .func = [](const Vars& v) { return Vars{F::layer_normalization(v[0], v[1], v[2])}; },
        .reference =
            [](const Arrays& a) {
                const std::vector<double> xh = standardize_blocks(to_doubles(a[0]), 5, 1e-5);
                const std::vector<double> g = to_doubles(a[1]), b = to_doubles(a[2]);
                std::vector<double> y;
                for (size_t i = 0; i < xh.size(); ++i) y.push_back(xh[i] * g[i % 5] + b[i % 5]);
                return Arrays{f64(y, {3, 5})};
            },
        .forward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
        .backward_tol = {.float16 = Tolerance{1e-1, 1e-1}},
    });
    CHECK_THROWS_AS(
        F::layer_normalization(Variable(ops::zeros({2, 3, 4})), Variable(ops::ones({3})), Variable(ops::zeros({3}))),
        DimensionError);
}

TEST_CASE("group_normalization", "[functions][normalization]") {
    check_function({
        .name = "group_normalization",
        .inputs = {{.shape = {2, 4, 3}}, {.shape = {4}, .low = 0.5, .high = 1.5}, {.shape = {4}}},
        .func = [](const Vars& v) { return Vars{F::group_normalization(v[0], 2, v[1], v[2])}; },
        .reference =
            [](const Arrays& a) {
                // Blocks of (2 channels x 3) per (sample, group).
                const std::vector<double> xh = standardize_blocks(to_doubles(a[0]), 6, 1e-5);
                const std::vector<double> g = to_doubles(a[1]), b = to_doubles(a[2]);
                std::vector<double> y;
                for (size_t i = 0; i < xh.size(); ++i) y.push_back(xh[i] * g[(i / 3) % 4] + b[(i / 3) % 4]);
                return Arrays{f64(y, {2, 4, 3})};
            },
        .forward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
        .backward_tol = {.float16 = Tolerance{1e-1, 1e-1}},
    });
    const Variable g(ops::ones({4})), b(ops::zeros({4}));
    CHECK_THROWS_WITH(F::group_normalization(Variable(ops::zeros({2, 4, 3})), 3, g, b),
                      Catch::Contains("must be a divisor"));
    CHECK_THROWS_WITH(F::group_normalization(Variable(ops::zeros({4})), 2, g, b),
                      Catch::Contains("group_normalization: Expect: x.ndim >= 2, Actual: x.shape = (4,)"));
}

TEST_CASE("group_normalization of a 2-D x (n, c)", "[functions][normalization]") {
    check_function({
        .name = "group_normalization 2-D",
        .inputs = {{.shape = {3, 6}}, {.shape = {6}, .low = 0.5, .high = 1.5}, {.shape = {6}}},
        .func = [](const Vars& v) { return Vars{F::group_normalization(v[0], 2, v[1], v[2])}; },
        .reference =
            [](const Arrays& a) {
                // Blocks of 3 channels per (sample, group).
                const std::vector<double> xh = standardize_blocks(to_doubles(a[0]), 3, 1e-5);
                const std::vector<double> g = to_doubles(a[1]), b = to_doubles(a[2]);
                std::vector<double> y;
                for (size_t i = 0; i < xh.size(); ++i) y.push_back(xh[i] * g[i % 6] + b[i % 6]);
                return Arrays{f64(y, {3, 6})};
            },
        .forward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
        .backward_tol = {.float16 = Tolerance{1e-1, 1e-1}},
    });
}

TEST_CASE("local_response_normalization", "[functions][normalization]") {
    const Shape shape{2, 7, 2};
    check_function({
        .name = "local_response_normalization",
        .inputs = {{.shape = shape, .low = -2.0, .high = 2.0}},
        .func = [](const Vars& v) { return Vars{F::local_response_normalization(v[0], {.n = 5, .alpha = 0.1})}; },
        .reference =
            [shape](const Arrays& a) {
                const std::vector<double> x = to_doubles(a[0]);
                std::vector<double> y(x.size());
                for (int64_t n = 0; n < 2; ++n) {
                    for (int64_t c = 0; c < 7; ++c) {
                        for (int64_t s = 0; s < 2; ++s) {
                            double sum = 0;
                            for (int64_t j = std::max<int64_t>(0, c - 2); j <= std::min<int64_t>(6, c + 2); ++j) {
                                sum += x[(n * 7 + j) * 2 + s] * x[(n * 7 + j) * 2 + s];
                            }
                            y[(n * 7 + c) * 2 + s] = x[(n * 7 + c) * 2 + s] * std::pow(2.0 + 0.1 * sum, -0.75);
                        }
                    }
                }
                return Arrays{f64(y, shape)};
            },
        .double_backward = false,  // Chainer has none either
    });
    CHECK_THROWS_AS(F::local_response_normalization(Variable(ops::zeros({3}))), DimensionError);
}

TEST_CASE("normalize", "[functions][normalization]") {
    for (const int axis : {1, 0, -1}) {
        check_function({
            .name = "normalize",
            .inputs = {{.shape = {3, 4}, .values = away_from({0.0}, -1.0, 1.0, 0.1)}},
            .func = [axis](const Vars& v) { return Vars{F::normalize(v[0], 1e-5, axis)}; },
            .reference =
                [axis](const Arrays& a) {
                    const std::vector<double> x = to_doubles(a[0]);
                    const int ax = axis < 0 ? axis + 2 : axis;
                    std::vector<double> y(x.size());
                    for (int64_t i = 0; i < 3; ++i) {
                        for (int64_t j = 0; j < 4; ++j) {
                            double norm = 0;
                            for (int64_t k = 0; k < (ax == 1 ? 4 : 3); ++k) {
                                const double v = ax == 1 ? x[i * 4 + k] : x[k * 4 + j];
                                norm += v * v;
                            }
                            y[i * 4 + j] = x[i * 4 + j] / (std::sqrt(norm) + 1e-5);
                        }
                    }
                    return Arrays{f64(y, {3, 4})};
                },
        });
    }
    CHECK_THROWS_AS(F::normalize(Variable(ops::zeros({2, 3}, Dtype::kInt32))), DtypeError);
    CHECK_THROWS_AS(F::normalize(Variable(ops::zeros({2, 3})), 1e-5, 2), DimensionError);
    CHECK_THROWS_AS(F::normalize(Variable(ops::zeros({2, 3})), 1e-5, Axes{1, -1}), DimensionError);
}

TEST_CASE("normalize over a tuple of axes", "[functions][normalization]") {
    check_function({
        .name = "normalize axis=(0, 2)",
        .inputs = {{.shape = {2, 3, 2}, .values = away_from({0.0}, -1.0, 1.0, 0.1)}},
        .func =
            [](const Vars& v) {
                return Vars{F::normalize(v[0], 1e-5, Axes{0, -1})};
            },
        .reference =
            [](const Arrays& a) {
                const std::vector<double> x = to_doubles(a[0]);
                std::vector<double> y(x.size());
                for (int64_t j = 0; j < 3; ++j) {
                    double norm = 0;
                    for (int64_t i = 0; i < 2; ++i) {
                        for (int64_t k = 0; k < 2; ++k) norm += x[(i * 3 + j) * 2 + k] * x[(i * 3 + j) * 2 + k];
                    }
                    for (int64_t i = 0; i < 2; ++i) {
                        for (int64_t k = 0; k < 2; ++k) {
                            y[(i * 3 + j) * 2 + k] = x[(i * 3 + j) * 2 + k] / (std::sqrt(norm) + 1e-5);
                        }
                    }
                }
                return Arrays{f64(y, {2, 3, 2})};
            },
    });
}

TEST_CASE("normalize of a zero vector has Chainer's finite gradient", "[functions][normalization]") {
    // Row 0 is zero: Chainer's backward gives gy / eps there, and its gradient by gy stays finite.
    const Variable x(f64({0, 0, 3, 4}, {2, 2}), true);
    const Variable y = F::normalize(x, 0.5);
    const Variable gy(f64({1, 2, 1, 1}, {2, 2}), true);
    const std::vector<Variable> gx = grad({y}, {x}, {gy}, {.enable_double_backprop = true});
    const std::vector<double> g = to_doubles(gx[0].array());
    CHECK(g[0] == Approx(2.0));
    CHECK(g[1] == Approx(4.0));
    CHECK(g[2] == Approx(4.29752066e-02));  // Chainer 7.8.1's values
    CHECK(g[3] == Approx(-3.30578512e-03));
    // d(gx)/d(gy) is finite at the zero row too (d/dx there is NaN in Chainer as well).
    const std::vector<Variable> ggy = grad({gx[0]}, {gy}, {Variable(ops::ones({2, 2}, Dtype::kFloat64), false)});
    const std::vector<double> expected{2.0, 2.0, 0.0429752066, -0.00330578512};
    const std::vector<double> got = to_doubles(ggy[0].array());
    for (size_t i = 0; i < 4; ++i) CHECK(got[i] == Approx(expected[i]).epsilon(1e-6));
}
