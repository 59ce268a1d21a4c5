// gaussian and gumbel_softmax: gradients with the noise fixed, sample statistics,
// determinism under a seed, test mode, errors.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/noise.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array pattern_eps(const Shape& shape, Dtype dtype) {
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i) * 1.7) * 1.5;
    return f64(v, shape).astype(dtype);
}

}  // namespace

TEST_CASE("gaussian: with fixed noise", "[functions][noise]") {
    check_function({
        .name = "gaussian",
        .inputs = {{.shape = {3, 4}}, {.shape = {3, 4}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::gaussian(xs[0], xs[1], pattern_eps({3, 4}, xs[0].dtype()).to_device(xs[0].device()))};
            },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> m = to_doubles(xs[0]), l = to_doubles(xs[1]);
                const std::vector<double> e = to_doubles(pattern_eps({3, 4}, Dtype::kFloat64));
                std::vector<double> y(m.size());
                for (size_t i = 0; i < y.size(); ++i) y[i] = m[i] + std::exp(l[i] / 2) * e[i];
                return Arrays{f64(y, {3, 4})};
            },
        .forward_tol = {.float16 = Tolerance{1e-2, 1e-2}},
    });
}

TEST_CASE("gaussian: statistics, seed, test mode, errors", "[functions][noise]") {
    rensa::seed(5);
    const Variable mean(ops::full({20000}, 1.0, Dtype::kFloat32)),
        ln_var(ops::full({20000}, std::log(4.0), Dtype::kFloat32));
    const std::vector<double> y = to_doubles(F::gaussian(mean, ln_var).array());
    double s = 0, s2 = 0;
    for (const double v : y) {
        s += v;
        s2 += v * v;
    }
    const double m = s / static_cast<double>(y.size()), var = s2 / static_cast<double>(y.size()) - m * m;
    CHECK(std::abs(m - 1.0) < 0.05);
    CHECK(std::abs(std::sqrt(var) - 2.0) < 0.05);
    rensa::seed(5);
    CHECK(to_doubles(F::gaussian(mean, ln_var).array()) == y);
    {
        ConfigScope<bool> test{&Config::train, false};
        CHECK(F::gaussian(mean, ln_var) == mean);
    }
    CHECK_THROWS_AS(F::gaussian(mean, Variable(ops::zeros({3}))), DimensionError);
    CHECK_THROWS_AS(F::gaussian(mean, Variable(ops::zeros({20000}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::gaussian(Variable(ops::zeros({2}, Dtype::kInt32)), Variable(ops::zeros({2}, Dtype::kInt32))),
                    DtypeError);
}

TEST_CASE("gumbel_softmax: gradients under a fixed seed", "[functions][noise]") {
    check_function({
        .name = "gumbel_softmax",
        .inputs = {{.shape = {3, 4}}},
        .func =
            [](const Vars& xs) {
                rensa::seed(7);  // the same noise on every call
                return Vars{F::gumbel_softmax(xs[0], 1.0)};
            },
        .dtypes = {Dtype::kFloat64},
    });
}

TEST_CASE("gumbel_softmax: samples follow the distribution", "[functions][noise]") {
    rensa::seed(1);
    const int64_t n = 20000;
    std::vector<double> logp;
    for (int64_t i = 0; i < n; ++i) {
        for (const double p : {0.2, 0.3, 0.5}) logp.push_back(std::log(p));
    }
    const Variable log_p(f64(logp, {n, 3}).astype(Dtype::kFloat32));
    const Variable y = F::gumbel_softmax(log_p);
    CHECK(y.dtype() == Dtype::kFloat32);
    const std::vector<double> v = to_doubles(y.array());
    double counts[3] = {}, worst_sum = 0;
    for (int64_t i = 0; i < n; ++i) {
        const auto row = v.begin() + i * 3;
        worst_sum = std::max(worst_sum, std::abs(row[0] + row[1] + row[2] - 1.0));
        counts[std::max_element(row, row + 3) - row] += 1;
    }
    CHECK(worst_sum < 1e-5);
    CHECK(std::abs(counts[0] / n - 0.2) < 0.015);
    CHECK(std::abs(counts[1] / n - 0.3) < 0.015);
    CHECK(std::abs(counts[2] / n - 0.5) < 0.015);
    rensa::seed(1);
    CHECK(to_doubles(F::gumbel_softmax(log_p).array()) == v);
    CHECK_THROWS_AS(F::gumbel_softmax(log_p, 0.0), ValueError);
    CHECK_THROWS_AS(F::gumbel_softmax(log_p, 0.1, 2), DimensionError);
    CHECK_THROWS_AS(F::gumbel_softmax(Variable(ops::zeros({2, 2}, Dtype::kInt32))), DtypeError);
}
