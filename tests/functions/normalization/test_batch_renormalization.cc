// batch_renormalization: forward against float64 loops (r and d clipped and not), Chainer's
// gradient (r and d constant), the running statistics update, errors.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/ops/creation.h"
#include "functions/normalization.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kN = 4, kC = 3, kS = 2;  // x (N, C, S)
constexpr double kEps = 2e-5;

// Per channel: mean and biased variance over (N, S).
void channel_stats(const std::vector<double>& x, int64_t c, double& mean, double& var) {
    mean = 0;
    for (int64_t n = 0; n < kN; ++n) {
        for (int64_t s = 0; s < kS; ++s) mean += x[(n * kC + c) * kS + s];
    }
    mean /= kN * kS;
    var = 0;
    for (int64_t n = 0; n < kN; ++n) {
        for (int64_t s = 0; s < kS; ++s) var += std::pow(x[(n * kC + c) * kS + s] - mean, 2);
    }
    var /= kN * kS;
}

Array renorm_reference(const Arrays& xs, const std::vector<double>& rmean, const std::vector<double>& rvar, double rmax,
                       double dmax) {
    const std::vector<double> x = to_doubles(xs[0]), g = to_doubles(xs[1]), b = to_doubles(xs[2]);
    std::vector<double> y(x.size());
    for (int64_t c = 0; c < kC; ++c) {
        double mean = 0, var = 0;
        channel_stats(x, c, mean, var);
        const double std = std::sqrt(var + kEps), rs = std::sqrt(rvar[c] + kEps);
        const double r = std::clamp(std / rs, 1.0 / rmax, rmax), d = std::clamp((mean - rmean[c]) / rs, -dmax, dmax);
        for (int64_t n = 0; n < kN; ++n) {
            for (int64_t s = 0; s < kS; ++s) {
                const size_t at = (n * kC + c) * kS + s;
                y[at] = g[c] * ((x[at] - mean) / std * r + d) + b[c];
            }
        }
    }
    return f64(y, {kN, kC, kS});
}

}  // namespace

TEST_CASE("batch_renormalization", "[functions][normalization]") {
    struct Case {
        double rmax, dmax;
        std::vector<double> rmean, rvar;
        bool backward;
    };
    // rmax = 1, dmax = 0 is plain batch normalization. With small running variances and far
    // running means r and d are clipped, so they are constant near x and finite differences
    // see Chainer's gradient. Unclipped r and d depend on x while the gradient holds them
    // constant (the paper's stop_gradient), so that case checks the forward only.
    const std::vector<Case> cases = {{1.0, 0.0, {0.1, -0.2, 0.05}, {0.2, 0.5, 0.3}, true},
                                     {1.5, 0.5, {2.0, -2.0, 2.0}, {0.01, 0.02, 0.01}, true},
                                     {5.0, 50.0, {0.1, -0.2, 0.05}, {0.2, 0.5, 0.3}, false}};
    for (const Case& k : cases) {
        check_function({
            .name = "batch_renormalization",
            .inputs = {{.shape = {kN, kC, kS}}, {.shape = {kC}, .low = 0.5, .high = 1.5}, {.shape = {kC}}},
            .func =
                [=](const Vars& xs) {
                    const Dtype dt = xs[1].dtype();
                    const F::BatchRenormalizationOptions o{.running_mean = Array::from_vector(k.rmean, {kC}).astype(dt),
                                                           .running_var = Array::from_vector(k.rvar, {kC}).astype(dt)};
                    return Vars{F::batch_renormalization(xs[0], xs[1], xs[2], k.rmax, k.dmax, o)};
                },
            .reference =
                [=](const Arrays& xs) { return Arrays{renorm_reference(xs, k.rmean, k.rvar, k.rmax, k.dmax)}; },
            .backward = k.backward,
            .double_backward = false,  // Chainer's BatchRenormalizationFunction is an old-style Function
        });
    }
}

TEST_CASE("batch_renormalization: running statistics", "[functions][normalization]") {
    const std::vector<double> xv = {0.3, -0.1, 0.7,  0.2, -0.4, 0.9,  0.5,  0.0, -0.6, 0.8,  0.1, -0.3,
                                    0.4, 0.6,  -0.2, 0.3, 0.2,  -0.7, -0.5, 0.1, 0.6,  -0.8, 0.9, 0.0};
    const Variable x(Array::from_vector(xv, {kN, kC, kS}));
    const Variable g(ops::ones({kC}, Dtype::kFloat64)), b(ops::zeros({kC}, Dtype::kFloat64));
    const Array rm = ops::zeros({kC}, Dtype::kFloat64), rv = ops::ones({kC}, Dtype::kFloat64);
    const Array rm0 = rm.copy(), rv0 = rv.copy();
    (void)F::batch_renormalization(x, g, b, 2.0, 1.0, {.running_mean = rm, .running_var = rv});
    CHECK(rm.to_vector<double>() == rm0.to_vector<double>());  // not updated by default
    (void)F::batch_renormalization(x, g, b, 2.0, 1.0,
                                   {.running_mean = rm, .running_var = rv, .decay = 0.8, .update_statistics = true});
    const double m = kN * kS;
    for (int64_t c = 0; c < kC; ++c) {
        double mean = 0, var = 0;
        channel_stats(xv, c, mean, var);
        CHECK(rm.to_vector<double>()[c] == Approx(0.2 * mean));
        CHECK(rv.to_vector<double>()[c] == Approx(0.8 + 0.2 * var * m / (m - 1)));
    }
    CHECK(rv0.to_vector<double>()[0] == 1.0);
}

TEST_CASE("batch_renormalization: errors", "[functions][normalization]") {
    const Variable x(ops::zeros({4, 3})), g(ops::ones({3})), b(ops::zeros({3}));
    CHECK_THROWS_WITH(F::batch_renormalization(x, g, b, 1, 0, {}),
                      Catch::Contains("batch_renormalization: running_mean and running_var are required"));
    const F::BatchRenormalizationOptions o{.running_mean = ops::zeros({3}), .running_var = ops::ones({3})};
    CHECK_THROWS_WITH(F::batch_renormalization(Variable(ops::zeros({4, 2})), g, b, 1, 0, o),
                      Catch::Contains("batch_renormalization: Expect: x.shape[1:1 + gamma.ndim] == gamma.shape"));
    CHECK_THROWS_AS(F::batch_renormalization(x, g, Variable(ops::zeros({2})), 1, 0, o), DimensionError);
    CHECK_THROWS_AS(F::batch_renormalization(Variable(ops::zeros({4, 3}, Dtype::kInt32)), g, b, 1, 0, o), DtypeError);
    CHECK_THROWS_AS(
        F::batch_renormalization(x, g, b, 1, 0, {.running_mean = ops::zeros({2}), .running_var = ops::ones({2})}),
        DimensionError);
}

TEST_CASE("fixed_batch_renormalization", "[functions][normalization]") {
    check_function({
        .name = "fixed_batch_renormalization",
        .inputs = {{.shape = {kN, kC, kS}},
                   {.shape = {kC}},
                   {.shape = {kC}},
                   {.shape = {kC}},
                   {.shape = {kC}, .low = 0.5, .high = 1.5}},
        .func = [](const Vars& xs) { return Vars{F::fixed_batch_renormalization(xs[0], xs[1], xs[2], xs[3], xs[4])}; },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> x = to_doubles(xs[0]), g = to_doubles(xs[1]), b = to_doubles(xs[2]),
                                          m = to_doubles(xs[3]), v = to_doubles(xs[4]);
                std::vector<double> y(x.size());
                for (size_t i = 0; i < x.size(); ++i) {
                    const size_t c = (i / kS) % kC;
                    y[i] = g[c] * (x[i] - m[c]) / std::sqrt(v[c] + kEps) + b[c];
                }
                return Arrays{f64(y, {kN, kC, kS})};
            },
    });
}
