// dropout: the gradient with a fixed mask (grad = mask * scale), mask statistics,
// determinism under a seed, test mode, errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/modes.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/noise.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// 0 at every third element, 1 / (1 - ratio) elsewhere.
Array pattern_mask(const Shape& shape, Dtype dtype, double ratio) {
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = i % 3 == 0 ? 0.0 : 1.0 / (1.0 - ratio);
    return f64(v, shape).astype(dtype);
}

}  // namespace

TEST_CASE("dropout: with a fixed mask", "[functions][noise]") {
    for (const double ratio : {0.5, 0.2}) {
        check_function({
            .name = "dropout",
            .inputs = {{.shape = {3, 4}}},
            .func =
                [ratio](const Vars& xs) {
                    return Vars{
                        F::dropout(xs[0], ratio, pattern_mask({3, 4}, xs[0].dtype(), ratio).to_device(xs[0].device()))};
                },
            .reference =
                [ratio](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]),
                                              m = to_doubles(pattern_mask({3, 4}, Dtype::kFloat64, ratio));
                    std::vector<double> y(x.size());
                    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * m[i];
                    return Arrays{f64(y, {3, 4})};
                },
        });
    }
}

TEST_CASE("dropout: mask statistics and grad = mask", "[functions][noise]") {
    rensa::seed(3);
    const double ratio = 0.3;
    const Variable x(ops::ones({200, 100}));
    auto [y, mask] = F::dropout_with_mask(x, ratio);
    const std::vector<double> yv = to_doubles(y.array()), mv = to_doubles(mask);
    int64_t zeros = 0, bad = 0;
    for (size_t i = 0; i < yv.size(); ++i) {
        zeros += yv[i] == 0;
        bad += (yv[i] != 0 && std::abs(yv[i] - 1 / (1 - ratio)) > 1e-6) || yv[i] != mv[i];
    }
    CHECK(bad == 0);
    CHECK(std::abs(static_cast<double>(zeros) / static_cast<double>(yv.size()) - ratio) < 0.015);
    sum(y).backward();
    CHECK(to_doubles(x.grad()) == mv);
}

TEST_CASE("dropout: the same seed gives the same mask", "[functions][noise]") {
    const Variable x(ops::ones({4, 50}));
    rensa::seed(11);
    const std::vector<double> a = to_doubles(F::dropout(x).array());
    const std::vector<double> b = to_doubles(F::dropout(x).array());
    rensa::seed(11);
    const std::vector<double> c = to_doubles(F::dropout(x).array());
    CHECK(a == c);
    CHECK(a != b);
}

TEST_CASE("dropout: identity outside training, errors", "[functions][noise]") {
    const Variable x(ops::ones({2, 3}));
    {
        ConfigScope<bool> test{&Config::train, false};
        CHECK(F::dropout(x) == x);
        CHECK(!F::dropout_with_mask(x).second.defined());
    }
    CHECK(to_doubles(F::dropout(x, 0.0).array()) == std::vector<double>(6, 1.0));
    CHECK_THROWS_AS(F::dropout(x, 1.0), ValueError);
    CHECK_THROWS_WITH(F::dropout(x, -0.1), Catch::Contains("ratio"));
    CHECK_THROWS_AS(F::dropout(Variable(ops::ones({2}, Dtype::kInt32))), DtypeError);
    CHECK_THROWS_AS(F::dropout(x, 0.5, ops::ones({3, 2})), DimensionError);
    CHECK_THROWS_AS(F::dropout(x, 0.5, ops::ones({2, 3}, Dtype::kFloat64)), DtypeError);
}
