// average: Chainer's weighted mean, forward against float64 loops and hand-computed values,
// gradients, double backprop (check_backward / check_double_backward), errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/functions/math/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
using rensa::testing::math_reference::reduce;

namespace {

Array mean_ref(const Array& x, const std::optional<Axes>& axes, bool keepdims) {
    return reduce(
        x, axes, keepdims, 0.0, [](double a, double v) { return a + v; },
        [](double s, int64_t n) { return s / static_cast<double>(n); });
}

}  // namespace

TEST_CASE("average: without weights it is the mean", "[functions][math]") {
    struct Case {
        Shape shape;
        std::optional<Axes> axes;
        bool keepdims;
    };
    for (const Case& c :
         {Case{{3, 2, 4}, std::nullopt, false}, Case{{3, 2, 4}, Axes{1}, false}, Case{{3, 2, 4}, Axes{-1}, true},
          Case{{3, 2, 4}, Axes{0, 2}, false}, Case{{}, std::nullopt, false}}) {
        check_function({
            .name = "average",
            .inputs = {{.shape = c.shape}},
            .func = [&c](const Vars& xs) { return Vars{F::average(xs[0], c.axes, {}, c.keepdims)}; },
            .reference = [&c](const Arrays& xs) { return Arrays{mean_ref(xs[0], c.axes, c.keepdims)}; },
        });
    }
}

TEST_CASE("average: weights of x's shape without an axis", "[functions][math]") {
    for (const bool keepdims : {false, true}) {
        check_function({
            .name = "average weights",
            .inputs = {{.shape = {3, 4}}, {.shape = {3, 4}, .low = 0.5, .high = 1.5}},
            .func = [keepdims](const Vars& xs) { return Vars{F::average(xs[0], std::nullopt, xs[1], keepdims)}; },
            .reference =
                [keepdims](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]), w = to_doubles(xs[1]);
                    double s = 0, ws = 0;
                    for (size_t i = 0; i < x.size(); ++i) s += x[i] * w[i], ws += w[i];
                    return Arrays{f64({s / ws}, keepdims ? Shape{1, 1} : Shape{})};
                },
        });
    }
}

TEST_CASE("average: 1-D weights along one axis", "[functions][math]") {
    for (const int axis : {1, -1}) {
        check_function({
            .name = "average weights axis",
            .inputs = {{.shape = {2, 3}}, {.shape = {3}, .low = 0.5, .high = 1.5}},
            .func = [axis](const Vars& xs) { return Vars{F::average(xs[0], axis, xs[1])}; },
            .reference =
                [](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]), w = to_doubles(xs[1]);
                    const double ws = w[0] + w[1] + w[2];
                    std::vector<double> y;
                    for (int i = 0; i < 2; ++i)
                        y.push_back((x[3 * i] * w[0] + x[3 * i + 1] * w[1] + x[3 * i + 2] * w[2]) / ws);
                    return Arrays{f64(y, {2})};
                },
        });
    }
    check_function({
        .name = "average weights axis 0 keepdims",
        .inputs = {{.shape = {2, 3}}, {.shape = {2}, .low = 0.5, .high = 1.5}},
        .func = [](const Vars& xs) { return Vars{F::average(xs[0], Axes{0}, xs[1], true)}; },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> x = to_doubles(xs[0]), w = to_doubles(xs[1]);
                std::vector<double> y;
                for (int j = 0; j < 3; ++j) y.push_back((x[j] * w[0] + x[3 + j] * w[1]) / (w[0] + w[1]));
                return Arrays{f64(y, {1, 3})};
            },
    });
}

TEST_CASE("average: hand-computed values", "[functions][math]") {
    const Variable x(make_array({1, 2, 3, 4}, {2, 2}, Dtype::kFloat64));
    const Variable w(make_array({1, 3}, {2}, Dtype::kFloat64));
    check_allclose(F::average(x, 1, w).array(), {1.75, 3.75}, {2}, {1e-12, 1e-12});  // (1 + 6) / 4, (3 + 12) / 4
    check_allclose(F::average(x, 0, w).array(), {2.5, 3.5}, {2}, {1e-12, 1e-12});    // (1 + 9) / 4, (2 + 12) / 4
    check_allclose(F::average(x).array(), {2.5}, {}, {1e-12, 1e-12});
    const Variable w2(make_array({1, 0, 0, 1}, {2, 2}, Dtype::kFloat64));
    check_allclose(F::average(x, std::nullopt, w2, true).array(), {2.5}, {1, 1}, {1e-12, 1e-12});  // (1 + 4) / 2
}

TEST_CASE("average: bad input is an error naming average", "[functions][math]") {
    const Variable x(ops::zeros({2, 3})), w3(ops::zeros({3})), w2(ops::zeros({2}));
    CHECK_THROWS_WITH(F::average(x, Axes{0, 1}, w3),
                      Catch::Contains("average: Expect: one axis when weights is given"));
    CHECK_THROWS_AS(F::average(x, Axes{0, 1}, w3), ValueError);
    CHECK_THROWS_WITH(F::average(x, 1, w2), Catch::Contains("average: Expect: weights.shape == (3,), Actual: (2,)"));
    CHECK_THROWS_AS(F::average(x, 1, Variable(ops::zeros({1, 3}))), DimensionError);
    CHECK_THROWS_WITH(F::average(x, std::nullopt, w3),
                      Catch::Contains("average: Expect: weights.shape == x.shape, Actual: (3,) != (2, 3)"));
    CHECK_THROWS_WITH(F::average(x, 1, Variable(ops::zeros({3}, Dtype::kFloat64))),
                      Catch::Contains("average: Expect: x.dtype == weights.dtype, Actual: float32 != float64"));
    CHECK_THROWS_AS(F::average(Variable(ops::zeros({2}, Dtype::kInt32))), DtypeError);
    CHECK_THROWS_WITH(F::average(x, 2), Catch::Contains("average"));
    CHECK_THROWS_AS(F::average(x, 2), DimensionError);
    CHECK_THROWS_WITH(F::average(Variable()), Catch::Contains("average: Expect: x to be defined"));
}
