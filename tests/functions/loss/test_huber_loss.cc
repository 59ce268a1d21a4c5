// huber_loss: both reductions against float64 loops, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Elementwise huber values, summed over axis 1 of a 2-D shape when `sum_axis1`.
Array huber_reference(const Arrays& xs, double delta, bool sum_axis1) {
    const std::vector<double> x = to_doubles(xs[0]), t = to_doubles(xs[1]);
    std::vector<double> l(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const double d = std::abs(x[i] - t[i]);
        l[i] = d <= delta ? 0.5 * d * d : delta * (d - 0.5 * delta);
    }
    if (!sum_axis1) return f64(l, xs[0].shape());
    const int64_t rows = xs[0].shape()[0], cols = xs[0].shape()[1];
    std::vector<double> s(static_cast<size_t>(rows), 0.0);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) s[static_cast<size_t>(i)] += l[static_cast<size_t>(i * cols + j)];
    }
    return f64(s, {rows});
}

}  // namespace

TEST_CASE("huber_loss", "[functions][loss]") {
    const double delta = 1.0;
    for (const std::string reduce : {"sum_along_second_axis", "no"}) {
        const bool sum_axis1 = reduce == "sum_along_second_axis";
        for (const Shape& shape : sum_axis1 ? std::vector<Shape>{{3, 4}} : std::vector<Shape>{{3, 4}, {}, {2, 0}}) {
            check_function({
                .name = "huber_loss " + reduce,
                // |t| < 0.1 and x at least 0.25 from +-delta: |x - t| stays away from delta.
                .inputs = {{.shape = shape, .values = away_from({-delta, delta}, -2.0, 2.0, 0.25)},
                           {.shape = shape, .low = -0.1, .high = 0.1}},
                .func = [=](const Vars& xs) { return Vars{F::huber_loss(xs[0], xs[1], delta, reduce)}; },
                .reference = [=](const Arrays& xs) { return Arrays{huber_reference(xs, delta, sum_axis1)}; },
                .backward = shape_size(shape) > 0,
                .double_backward = shape_size(shape) > 0,
            });
        }
    }
}

TEST_CASE("huber_loss: errors", "[functions][loss]") {
    const Variable x(ops::zeros({2, 3})), t(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::huber_loss(x, t, 1.0, "mean"), Catch::Contains("'mean' is given"));
    CHECK_THROWS_AS(F::huber_loss(x, t, 1.0, "mean"), ValueError);
    CHECK_THROWS_AS(F::huber_loss(x, Variable(ops::zeros({3, 2})), 1.0), DimensionError);
    CHECK_THROWS_AS(F::huber_loss(Variable(ops::zeros({3})), Variable(ops::zeros({3})), 1.0), DimensionError);
}
