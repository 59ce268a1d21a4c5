// sum, mean, prod, logsumexp, cumsum: forward against float64 references, gradients,
// double backprop, 0-d and size-0 inputs, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/functions/math/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
namespace ref = rensa::testing::math_reference;

namespace {

struct AxisCase {
    Shape shape;
    std::optional<Axes> axes;
    bool keepdims;
};

const std::vector<AxisCase>& axis_cases() {
    static const std::vector<AxisCase> cases{
        {{2, 3, 4}, std::nullopt, false}, {{2, 3, 4}, Axes{1}, false}, {{2, 3, 4}, Axes{0, 2}, true},
        {{2, 3, 4}, Axes{-1}, false},     {{}, std::nullopt, false},   {{3, 4}, Axes{1}, true},
    };
    return cases;
}

double plus(double a, double b) { return a + b; }

}  // namespace

TEST_CASE("math: sum", "[functions][math]") {
    for (const AxisCase& c : axis_cases()) {
        check_function({
            .name = "sum",
            .inputs = {{.shape = c.shape}},
            .func = [&c](const Vars& xs) { return Vars{F::sum(xs[0], c.axes, c.keepdims)}; },
            .reference = [&c](const Arrays& xs) { return Arrays{ref::reduce(xs[0], c.axes, c.keepdims, 0.0, plus)}; },
        });
    }
    check_function({
        .name = "sum int axis",
        .inputs = {{.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::sum(xs[0], -1)}; },
        .reference = [](const Arrays& xs) { return Arrays{ref::reduce(xs[0], Axes{1}, false, 0.0, plus)}; },
    });
}

TEST_CASE("math: mean", "[functions][math]") {
    const auto finish = [](double v, int64_t n) { return v / static_cast<double>(n); };
    for (const AxisCase& c : axis_cases()) {
        check_function({
            .name = "mean",
            .inputs = {{.shape = c.shape}},
            .func = [&c](const Vars& xs) { return Vars{F::mean(xs[0], c.axes, c.keepdims)}; },
            .reference =
                [&](const Arrays& xs) { return Arrays{ref::reduce(xs[0], c.axes, c.keepdims, 0.0, plus, finish)}; },
        });
    }
    check_function({
        .name = "mean int axis",
        .inputs = {{.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::mean(xs[0], 0, true)}; },
        .reference = [&](const Arrays& xs) { return Arrays{ref::reduce(xs[0], Axes{0}, true, 0.0, plus, finish)}; },
    });
    // numpy: the mean of nothing is NaN; a size-0 result is fine.
    CHECK(std::isnan(F::mean(Variable(ops::zeros({0, 3}))).item()));
    CHECK(F::mean(Variable(ops::zeros({0, 3})), 1).shape() == Shape{0});
}

TEST_CASE("math: prod", "[functions][math]") {
    for (const AxisCase& c : axis_cases()) {
        check_function({
            .name = "prod",
            .inputs = {{.shape = c.shape, .values = away_from({0.0}, -1.5, 1.5, 0.5)}},
            .func = [&c](const Vars& xs) { return Vars{F::prod(xs[0], c.axes, c.keepdims)}; },
            .reference =
                [&c](const Arrays& xs) {
                    return Arrays{
                        ref::reduce(xs[0], c.axes, c.keepdims, 1.0, [](double a, double b) { return a * b; })};
                },
            .forward_tol = {.float16 = Tolerance{1e-2, 2e-2}},
        });
    }
}

TEST_CASE("math: prod gradient with zeros", "[functions][math]") {
    const auto grad_of = [](std::vector<double> values, const Shape& shape, std::optional<Axes> axes) {
        const Variable x(Array::from_vector(values, shape));
        F::sum(F::prod(x, axes)).backward();
        return x.grad().to_vector<double>();
    };
    CHECK(grad_of({2, 0, 3}, {3}, std::nullopt) == std::vector<double>{0, 6, 0});
    CHECK(grad_of({0, 0, 3}, {3}, std::nullopt) == std::vector<double>{0, 0, 0});
    CHECK(grad_of({2, 0, 3, 4, 5, 6}, {2, 3}, Axes{1}) == std::vector<double>{0, 6, 0, 30, 24, 20});
}

TEST_CASE("math: logsumexp", "[functions][math]") {
    const auto log_finish = [](double v, int64_t) { return std::log(v); };
    const auto add_exp = [](double a, double b) { return a + std::exp(b); };
    for (const std::optional<Axes>& axes :
         {std::optional<Axes>{}, std::optional<Axes>{Axes{1}}, std::optional<Axes>{Axes{0, 2}}}) {
        check_function({
            .name = "logsumexp",
            .inputs = {{.shape = {2, 3, 2}, .low = -3.0, .high = 3.0}},
            .func = [&axes](const Vars& xs) { return Vars{F::logsumexp(xs[0], axes)}; },
            .reference =
                [&](const Arrays& xs) { return Arrays{ref::reduce(xs[0], axes, false, 0.0, add_exp, log_finish)}; },
        });
    }
    // Stable for large inputs (a naive exp would overflow).
    const Variable big(Array::from_vector<double>({1000.0, 1000.0}, {2}));
    CHECK(F::logsumexp(big).item() == Approx(1000.0 + std::log(2.0)));
    CHECK(F::logsumexp(big, 0).item() == Approx(1000.0 + std::log(2.0)));
}

TEST_CASE("math: cumsum", "[functions][math]") {
    const auto cumsum_ref = [](const Array& x, int axis) {
        const std::vector<double> v = to_doubles(x);
        std::vector<double> out(v.size());
        for (int64_t i = 0; i < x.size(); ++i) {
            auto index = unravel(i, x.shape());
            const int64_t pos = index[static_cast<size_t>(axis)];
            double s = 0;
            for (int64_t p = 0; p <= pos; ++p) {
                index[static_cast<size_t>(axis)] = p;
                s += v[static_cast<size_t>(ravel(index, x.shape()))];
            }
            out[static_cast<size_t>(i)] = s;
        }
        return f64(out, x.shape());
    };
    for (const int axis : {0, 1, -1}) {
        check_function({
            .name = "cumsum",
            .inputs = {{.shape = {3, 4}}},
            .func = [axis](const Vars& xs) { return Vars{F::cumsum(xs[0], axis)}; },
            .reference = [&](const Arrays& xs) { return Arrays{cumsum_ref(xs[0], axis < 0 ? axis + 2 : axis)}; },
        });
    }
    check_function({
        .name = "cumsum flattened",
        .inputs = {{.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::cumsum(xs[0])}; },
        .reference = [&](const Arrays& xs) { return Arrays{cumsum_ref(xs[0].reshape({6}), 0)}; },
    });
    CHECK(F::cumsum(Variable(ops::zeros({0, 2})), 0).shape() == Shape{0, 2});
}

TEST_CASE("math: reduction errors", "[functions][math]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::sum(x, 2), DimensionError);
    CHECK_THROWS_AS(F::mean(x, Axes{0, 0}), DimensionError);
    CHECK_THROWS_AS(F::prod(x, 5), DimensionError);
    CHECK_THROWS_AS(F::logsumexp(x, -3), DimensionError);
    CHECK_THROWS_AS(F::cumsum(x, 2), DimensionError);
    CHECK_THROWS_WITH(F::mean(Variable(ops::zeros({2}, Dtype::kInt32))),
                      Catch::Contains("mean: Expect: x.dtype.kind == 'f'"));
    CHECK_THROWS_AS(F::sum(Variable(ops::zeros({2}, Dtype::kInt64)), 0), DtypeError);
}
