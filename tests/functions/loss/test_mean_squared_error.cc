// mean_squared_error, mean_absolute_error: forward against float64 loops, gradients,
// double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// mean(f(x0 - x1)) over every element.
Arrays mean_of(const Arrays& xs, double (*f)(double)) {
    const std::vector<double> a = to_doubles(xs[0]), b = to_doubles(xs[1]);
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += f(a[i] - b[i]);
    return {f64({s / static_cast<double>(a.size())}, {})};
}

}  // namespace

TEST_CASE("mean_squared_error", "[functions][loss]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}}) {
        check_function({
            .name = "mean_squared_error",
            .inputs = {{.shape = shape}, {.shape = shape}},
            .func = [](const Vars& xs) { return Vars{F::mean_squared_error(xs[0], xs[1])}; },
            .reference = [](const Arrays& xs) { return mean_of(xs, [](double d) { return d * d; }); },
        });
    }
}

TEST_CASE("mean_absolute_error", "[functions][loss]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}}) {
        check_function({
            .name = "mean_absolute_error",
            // |x0| >= 1.5 > |x1|: x0 - x1 stays away from the kink at 0, with both signs.
            .inputs = {{.shape = shape, .values = away_from({0.0}, -2.5, 2.5, 1.5)}, {.shape = shape}},
            .func = [](const Vars& xs) { return Vars{F::mean_absolute_error(xs[0], xs[1])}; },
            .reference = [](const Arrays& xs) { return mean_of(xs, [](double d) { return std::abs(d); }); },
        });
    }
}

TEST_CASE("mean_squared_error: mismatched inputs are errors", "[functions][loss]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({3, 2})), c(ops::zeros({2, 3}, Dtype::kFloat64));
    CHECK_THROWS_WITH(F::mean_squared_error(a, b), Catch::Contains("x0.shape == x1.shape"));
    CHECK_THROWS_AS(F::mean_absolute_error(a, b), DimensionError);
    CHECK_THROWS_AS(F::mean_squared_error(a, c), DtypeError);
    CHECK_THROWS_AS(
        F::mean_absolute_error(Variable(ops::zeros({2}, Dtype::kInt32)), Variable(ops::zeros({2}, Dtype::kInt32))),
        DtypeError);
}
