// cumprod (exact gradients with zeros) and fft / ifft: forward against float64 loops,
// gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array cumprod_ref(const Array& x, int axis) {
    const std::vector<double> v = to_doubles(x);
    std::vector<double> out(v.size());
    for (int64_t i = 0; i < x.size(); ++i) {
        auto index = unravel(i, x.shape());
        const int64_t pos = index[static_cast<size_t>(axis)];
        double p = 1;
        for (int64_t q = 0; q <= pos; ++q) {
            index[static_cast<size_t>(axis)] = q;
            p *= v[static_cast<size_t>(ravel(index, x.shape()))];
        }
        out[static_cast<size_t>(i)] = p;
    }
    return f64(out, x.shape());
}

// Uniform values with every third one exactly 0.
std::vector<double> with_zeros(int64_t n, uint64_t seed) {
    std::vector<double> v = away_from({0.0}, -1.5, 1.5, 0.2)(n, seed);
    for (size_t i = 1; i < v.size(); i += 3) v[i] = 0.0;
    return v;
}

// The DFT of real + i imag along the last axis, in double.
Arrays dft_ref(const Arrays& xs, bool inverse) {
    const std::vector<double> re = to_doubles(xs[0]), im = to_doubles(xs[1]);
    const int64_t n = xs[0].shape()[xs[0].ndim() - 1];
    std::vector<double> yr(re.size()), yi(re.size());
    const double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    for (size_t row = 0; row < re.size(); row += static_cast<size_t>(n)) {
        for (int64_t k = 0; k < n; ++k) {
            double sr = 0, si = 0;
            for (int64_t j = 0; j < n; ++j) {
                const double t = sign * 2 * std::numbers::pi * static_cast<double>(j * k) / static_cast<double>(n);
                const double a = re[row + static_cast<size_t>(j)], b = im[row + static_cast<size_t>(j)];
                sr += a * std::cos(t) - b * std::sin(t);
                si += a * std::sin(t) + b * std::cos(t);
            }
            yr[row + static_cast<size_t>(k)] = sr * scale;
            yi[row + static_cast<size_t>(k)] = si * scale;
        }
    }
    return {f64(yr, xs[0].shape()), f64(yi, xs[0].shape())};
}

}  // namespace

TEST_CASE("math: cumprod", "[functions][math]") {
    for (const int axis : {0, 1, -1}) {
        check_function({
            .name = "cumprod",
            .inputs = {{.shape = {3, 4}, .values = away_from({0.0}, -1.5, 1.5, 0.2)}},
            .func = [axis](const Vars& xs) { return Vars{F::cumprod(xs[0], axis)}; },
            .reference = [axis](const Arrays& xs) { return Arrays{cumprod_ref(xs[0], axis < 0 ? axis + 2 : axis)}; },
            .forward_tol = {.float16 = Tolerance{1e-2, 2e-2}},
        });
    }
    check_function({
        .name = "cumprod with zeros",
        .inputs = {{.shape = {2, 5}, .values = with_zeros}},
        .func = [](const Vars& xs) { return Vars{F::cumprod(xs[0], 1)}; },
        .reference = [](const Arrays& xs) { return Arrays{cumprod_ref(xs[0], 1)}; },
        .forward_tol = {.float16 = Tolerance{1e-2, 2e-2}},
    });
    check_function({
        .name = "cumprod flattened",
        .inputs = {{.shape = {2, 3}, .values = away_from({0.0}, -1.5, 1.5, 0.2)}},
        .func = [](const Vars& xs) { return Vars{F::cumprod(xs[0])}; },
        .reference = [](const Arrays& xs) { return Arrays{cumprod_ref(xs[0].reshape({6}), 0)}; },
        .forward_tol = {.float16 = Tolerance{1e-2, 2e-2}},
    });
    CHECK(F::cumprod(Variable(ops::zeros({0, 3})), 0).shape() == Shape{0, 3});
    CHECK(F::cumprod(Variable(ops::ones({3, 1})), 1).shape() == Shape{3, 1});
}

TEST_CASE("math: cumprod gradient with zeros is exact", "[functions][math]") {
    // y = (2, 0, 0, 0): dy3/dx1 = 2 * 3 * 4 = 24; numpy's y / x would give NaN.
    const Variable x(Array::from_vector<double>({2, 0, 3, 4}, {4}));
    F::sum(F::cumprod(x)).backward();
    CHECK(x.grad().to_vector<double>() == std::vector<double>{1, 2 + 6 + 24, 0, 0});
}

TEST_CASE("math: cumprod errors", "[functions][math]") {
    CHECK_THROWS_AS(F::cumprod(Variable(ops::zeros({2, 3})), 2), DimensionError);
    CHECK_THROWS_WITH(F::cumprod(Variable(ops::zeros({2}, Dtype::kInt32))), Catch::Contains("cumprod: Expect:"));
}

TEST_CASE("math: fft and ifft", "[functions][math]") {
    for (const bool inverse : {false, true}) {
        for (const Shape& shape : {Shape{5}, Shape{2, 3, 4}}) {
            check_function({
                .name = inverse ? "ifft" : "fft",
                .inputs = {{.shape = shape}, {.shape = shape}},
                .func =
                    [inverse](const Vars& xs) {
                        const auto [r, i] = inverse ? F::ifft({xs[0], xs[1]}) : F::fft({xs[0], xs[1]});
                        return Vars{r, i};
                    },
                .reference = [inverse](const Arrays& xs) { return dft_ref(xs, inverse); },
                .forward_tol = {.float16 = Tolerance{3e-2, 3e-2}},
            });
        }
    }
    // ifft(fft(x)) == x.
    const Variable re(Array::from_vector<double>({1, 2, 3}, {3})), im(Array::from_vector<double>({0, -1, 5}, {3}));
    const auto [yr, yi] = F::ifft(F::fft({re, im}));
    check_allclose(yr.array(), f64({1, 2, 3}, {3}));
    check_allclose(yi.array(), f64({0, -1, 5}, {3}));
}

TEST_CASE("math: fft errors", "[functions][math]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({2, 4}));
    CHECK_THROWS_AS(F::fft({a, b}), DimensionError);
    CHECK_THROWS_AS(F::fft({a, Variable(ops::zeros({2, 3}, Dtype::kFloat64))}), DtypeError);
    CHECK_THROWS_WITH(F::ifft({Variable(ops::zeros({})), Variable(ops::zeros({}))}),
                      Catch::Contains("ifft: Expect: real.ndim > 0"));
    CHECK_THROWS_AS(F::fft({Variable(ops::zeros({2, 0})), Variable(ops::zeros({2, 0}))}), ValueError);
    CHECK_THROWS_AS(F::fft({Variable(ops::zeros({2}, Dtype::kInt32)), Variable(ops::zeros({2}, Dtype::kInt32))}),
                    DtypeError);
}
