// squared_error, absolute_error: forward against float64 loops and hand-computed values,
// gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Arrays elementwise(const Arrays& xs, double (*f)(double)) {
    const std::vector<double> a = to_doubles(xs[0]), b = to_doubles(xs[1]);
    std::vector<double> y;
    for (size_t i = 0; i < a.size(); ++i) y.push_back(f(a[i] - b[i]));
    return {f64(y, xs[0].shape())};
}

}  // namespace

TEST_CASE("squared_error", "[functions][loss]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}}) {
        check_function({
            .name = "squared_error",
            .inputs = {{.shape = shape}, {.shape = shape}},
            .func = [](const Vars& xs) { return Vars{F::squared_error(xs[0], xs[1])}; },
            .reference = [](const Arrays& xs) { return elementwise(xs, [](double d) { return d * d; }); },
        });
    }
    const Variable a(make_array({1, 2, 3}, {3}, Dtype::kFloat64)), b(make_array({3, 2, -1}, {3}, Dtype::kFloat64));
    check_allclose(F::squared_error(a, b).array(), {4, 0, 16}, {3}, {0, 0});
}

TEST_CASE("absolute_error", "[functions][loss]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}}) {
        check_function({
            .name = "absolute_error",
            // |x0| >= 1.5 > |x1|: x0 - x1 stays away from the kink at 0, with both signs.
            .inputs = {{.shape = shape, .values = away_from({0.0}, -2.5, 2.5, 1.5)}, {.shape = shape}},
            .func = [](const Vars& xs) { return Vars{F::absolute_error(xs[0], xs[1])}; },
            .reference = [](const Arrays& xs) { return elementwise(xs, [](double d) { return std::abs(d); }); },
        });
    }
    const Variable a(make_array({1, 2, 3}, {3}, Dtype::kFloat64)), b(make_array({3, 2, -1}, {3}, Dtype::kFloat64));
    check_allclose(F::absolute_error(a, b).array(), {2, 0, 4}, {3}, {0, 0});
}

TEST_CASE("squared_error, absolute_error: mismatched inputs are errors", "[functions][loss]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({3, 2})), c(ops::zeros({2, 3}, Dtype::kFloat64));
    const Variable i(ops::zeros({2, 3}, Dtype::kInt32));
    CHECK_THROWS_WITH(F::squared_error(a, b),
                      Catch::Contains("squared_error: Expect: x0.shape == x1.shape, Actual: (2, 3) != (3, 2)"));
    CHECK_THROWS_AS(F::absolute_error(a, b), DimensionError);
    CHECK_THROWS_WITH(F::absolute_error(a, c),
                      Catch::Contains("absolute_error: Expect: x0.dtype == x1.dtype, Actual: float32 != float64"));
    CHECK_THROWS_AS(F::squared_error(a, c), DtypeError);
    CHECK_THROWS_WITH(F::squared_error(i, i), Catch::Contains("squared_error: Expect: x0.dtype.kind == 'f'"));
    CHECK_THROWS_WITH(F::absolute_error(a, Variable()), Catch::Contains("absolute_error: Expect: x1 to be defined"));
}
