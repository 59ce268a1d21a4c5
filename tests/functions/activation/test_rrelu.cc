// rrelu: forward against a float64 reference with a given r, gradients and double backprop;
// the noise it draws in training, (l + u) / 2 in test mode (also over a given r, as Chainer),
// return_r, errors.

#include <catch2/catch.hpp>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("rrelu with a given r", "[functions][activation]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{2, 3, 2}}) {
        check_function({
            .name = "rrelu",
            .inputs = {{.shape = shape, .values = away_from({0.0})},
                       {.shape = shape, .low = 0.1, .high = 0.4, .differentiable = false}},
            .func =
                [](const Vars& xs) {
                    // The gradient checks run x in float64: r (held constant) follows x's dtype.
                    return Vars{F::rrelu(xs[0], 0.125, 1.0 / 3, xs[1].array().astype(xs[0].dtype()))};
                },
            .reference =
                [](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]), r = to_doubles(xs[1]);
                    std::vector<double> y;
                    for (size_t k = 0; k < x.size(); ++k) y.push_back(x[k] >= 0 ? x[k] : x[k] * r[k]);
                    return Arrays{f64(y, xs[0].shape())};
                },
        });
    }
}

TEST_CASE("rrelu: training noise and test mode", "[functions][activation]") {
    rensa::seed(3);
    const Variable x(make_array({-1.0, -2.0, 3.0, -4.0, 0.0, -0.5}, {2, 3}, Dtype::kFloat32));
    const auto [y, r] = F::rrelu_with_r(x, 0.2, 0.3);
    REQUIRE(r.shape() == x.shape());
    CHECK(r.dtype() == Dtype::kFloat32);
    const std::vector<double> xv = to_doubles(x.array()), yv = to_doubles(y.array()), rv = to_doubles(r);
    for (size_t k = 0; k < xv.size(); ++k) {
        CHECK(rv[k] >= 0.2);
        CHECK(rv[k] < 0.3 + 1e-7);
        CHECK(yv[k] == Approx(xv[k] >= 0 ? xv[k] : xv[k] * rv[k]));
    }
    // The same r again gives the same y; test mode ignores r and uses the mean slope.
    CHECK(to_doubles(F::rrelu(x, 0.2, 0.3, r).array()) == yv);
    ConfigScope test{&Config::train, false};
    const auto [yt, rt] = F::rrelu_with_r(x, 0.2, 0.3, r);
    for (double v : to_doubles(rt)) CHECK(v == Approx(0.25));
    CHECK(to_doubles(yt.array()) == std::vector<double>{-0.25, -0.5, 3.0, -1.0, 0.0, -0.125});
}

TEST_CASE("rrelu: errors", "[functions][activation]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::rrelu(Variable(ops::zeros({2}, Dtype::kInt32))),
                      Catch::Contains("rrelu: Expect: x.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_AS(F::rrelu(x, 0.1, 0.2, ops::zeros({3, 2})), DimensionError);
    CHECK_THROWS_WITH(F::rrelu(x, 0.1, 0.2, ops::zeros({2, 3}, Dtype::kFloat64)), Catch::Contains("rrelu: Expect:"));
}
