// batch_normalization and fixed_batch_normalization: forward against a float64 reference,
// gradients, double backprop, the running statistics, the axis option and errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "functions/normalization.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// y = (x - mean) / sqrt(var + eps) * gamma + beta; batch statistics when mean/var are empty.
Array bn_reference(const Array& x, const Array& gamma, const Array& beta, const Axes& axes, double eps,
                   std::vector<double> mean = {}, std::vector<double> var = {}) {
    const std::vector<double> xv = to_doubles(x), gv = to_doubles(gamma), bv = to_doubles(beta);
    const std::vector<int64_t> ids = channel_ids(x.shape(), axes);
    const size_t c = gv.size();
    if (mean.empty()) {
        const double m = static_cast<double>(xv.size()) / static_cast<double>(c);
        mean.assign(c, 0.0);
        var.assign(c, 0.0);
        for (size_t i = 0; i < xv.size(); ++i) mean[ids[i]] += xv[i] / m;
        for (size_t i = 0; i < xv.size(); ++i) var[ids[i]] += (xv[i] - mean[ids[i]]) * (xv[i] - mean[ids[i]]) / m;
    }
    std::vector<double> y;
    for (size_t i = 0; i < xv.size(); ++i) {
        const int64_t k = ids[i];
        y.push_back((xv[i] - mean[k]) / std::sqrt(var[k] + eps) * gv[k] + bv[k]);
    }
    return f64(y, x.shape());
}

struct BnCase {
    Shape x, gamma;
    std::optional<Axes> axis;
    Axes reduced;  // the axes the reference reduces over
};

}  // namespace

TEST_CASE("batch_normalization", "[functions][normalization]") {
    const BnCase cases[] = {
        {{5, 3, 2}, {3}, std::nullopt, {0, 2}},
        {{6, 3}, {3}, std::nullopt, {0}},
        {{2, 3, 2, 2}, {3, 2}, std::nullopt, {0, 3}},
        {{2, 3, 4}, {2, 4}, Axes{1}, {1}},  // kept axes not adjacent: the transposed path
        {{2, 3, 4}, {3}, Axes{0, -1}, {0, 2}},
    };
    for (const BnCase& cs : cases) {
        const Axes reduced = cs.reduced;
        check_function({
            .name = "batch_normalization",
            .inputs = {{.shape = cs.x}, {.shape = cs.gamma, .low = 0.5, .high = 1.5}, {.shape = cs.gamma}},
            .func = [&cs](const Vars& v) { return Vars{F::batch_normalization(v[0], v[1], v[2], {.axis = cs.axis})}; },
            .reference = [reduced](const Arrays& a) { return Arrays{bn_reference(a[0], a[1], a[2], reduced, 2e-5)}; },
            .forward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
            .backward_tol = {.float16 = Tolerance{1e-1, 1e-1}},
        });
    }
}

TEST_CASE("batch_normalization updates the running statistics like Chainer", "[functions][normalization]") {
    const Array x = f64({1, 2, 3, 4, 5, 6, 8, 10}, {4, 2});
    const Array running_mean = ops::zeros({2}, Dtype::kFloat64), running_var = ops::ones({2}, Dtype::kFloat64);
    const Variable y = F::batch_normalization(Variable(x), Variable(ops::ones({2}, Dtype::kFloat64)),
                                              Variable(ops::zeros({2}, Dtype::kFloat64)),
                                              {.running_mean = running_mean, .running_var = running_var});
    // Column 0: 1, 3, 5, 8 (mean 4.25, unbiased var 26.75 / 3); column 1: 2, 4, 6, 10 (5.5, 35 / 3).
    check_allclose(running_mean, f64({0.425, 0.55}, {2}), {1e-9, 1e-9});
    check_allclose(running_var, f64({0.9 + 0.1 * 26.75 / 3.0, 0.9 + 0.1 * 35.0 / 3.0}, {2}), {1e-7, 1e-7});
    CHECK(y.shape() == Shape{4, 2});
}

TEST_CASE("batch_normalization errors", "[functions][normalization]") {
    const Variable x(ops::zeros({2, 3, 4}));
    CHECK_THROWS_WITH(F::batch_normalization(x, Variable(ops::ones({4})), Variable(ops::zeros({4}))),
                      Catch::Contains("gamma.shape == x.shape without the axes"));
    CHECK_THROWS_AS(F::batch_normalization(Variable(ops::zeros({2, 3}, Dtype::kInt32)), Variable(ops::ones({3})),
                                           Variable(ops::zeros({3}))),
                    DtypeError);
    CHECK_THROWS_AS(F::batch_normalization(x, Variable(ops::ones({3})), Variable(ops::zeros({3}, Dtype::kFloat64))),
                    DtypeError);
    CHECK_THROWS_AS(F::batch_normalization(x, Variable(ops::ones({3})), Variable(ops::zeros({3})),
                                           {.running_mean = ops::zeros({4})}),
                    DimensionError);
}

TEST_CASE("fixed_batch_normalization", "[functions][normalization]") {
    for (const BnCase& cs : {BnCase{{4, 3, 2}, {3}, std::nullopt, {0, 2}}, BnCase{{2, 3, 4}, {2, 4}, Axes{1}, {1}}}) {
        const Axes reduced = cs.reduced;
        check_function({
            .name = "fixed_batch_normalization",
            .inputs = {{.shape = cs.x},
                       {.shape = cs.gamma, .low = 0.5, .high = 1.5},
                       {.shape = cs.gamma},
                       {.shape = cs.gamma},
                       {.shape = cs.gamma, .low = 0.5, .high = 1.5}},
            .func =
                [&cs](const Vars& v) {
                    return Vars{F::fixed_batch_normalization(v[0], v[1], v[2], v[3], v[4], 2e-5, cs.axis)};
                },
            .reference =
                [reduced](const Arrays& a) {
                    return Arrays{bn_reference(a[0], a[1], a[2], reduced, 2e-5, to_doubles(a[3]), to_doubles(a[4]))};
                },
        });
    }
}

TEST_CASE("fixed_batch_normalization errors", "[functions][normalization]") {
    const Variable g(ops::ones({3}));
    CHECK_THROWS_WITH(F::fixed_batch_normalization(Variable(ops::zeros({2, 3})), g, g, g, Variable(ops::ones({2}))),
                      Catch::Contains("var.shape == gamma.shape"));
}

TEST_CASE("batch_normalization of float16 x with float32 gamma", "[functions][normalization]") {
    const Variable x(ops::normal({4, 3, 2}).astype(Dtype::kFloat16));
    const Variable gamma(ops::ones({3})), beta(ops::zeros({3}));
    const Variable y = F::batch_normalization(x, gamma, beta);
    CHECK(y.dtype() == Dtype::kFloat16);
    y.set_grad(ops::ones({4, 3, 2}, Dtype::kFloat16));
    y.backward();
    CHECK(x.grad().dtype() == Dtype::kFloat16);
    CHECK(gamma.grad().dtype() == Dtype::kFloat32);
    check_allclose(beta.grad(), f64({8, 8, 8}, {3}), {1e-3, 1e-3});
}
