// max, min, argmax, argmin, maximum, minimum, clip.

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/functions/math/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
namespace ref = rensa::testing::math_reference;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

double bigger(double a, double b) { return std::max(a, b); }
double smaller(double a, double b) { return std::min(a, b); }

}  // namespace

TEST_CASE("math: max and min", "[functions][math]") {
    struct Case {
        Shape shape;
        std::optional<Axes> axes;
        bool keepdims;
    };
    const std::vector<Case> cases{{{2, 3, 4}, std::nullopt, false},
                                  {{2, 3, 4}, Axes{1}, false},
                                  {{2, 3, 4}, Axes{0, 2}, true},
                                  {{3, 4}, Axes{-1}, true},
                                  {{}, std::nullopt, false}};
    for (const Case& c : cases) {
        check_function({
            .name = "max",
            .inputs = {{.shape = c.shape, .values = distinct()}},
            .func = [&c](const Vars& xs) { return Vars{F::max(xs[0], c.axes, c.keepdims)}; },
            .reference =
                [&c](const Arrays& xs) { return Arrays{ref::reduce(xs[0], c.axes, c.keepdims, -kInf, bigger)}; },
        });
        check_function({
            .name = "min",
            .inputs = {{.shape = c.shape, .values = distinct()}},
            .func = [&c](const Vars& xs) { return Vars{F::min(xs[0], c.axes, c.keepdims)}; },
            .reference =
                [&c](const Arrays& xs) { return Arrays{ref::reduce(xs[0], c.axes, c.keepdims, kInf, smaller)}; },
        });
    }
    check_function({
        .name = "max int axis",
        .inputs = {{.shape = {3, 2}, .values = distinct()}},
        .func = [](const Vars& xs) { return Vars{F::max(xs[0], 0)}; },
        .reference = [](const Arrays& xs) { return Arrays{ref::reduce(xs[0], Axes{0}, false, -kInf, bigger)}; },
    });
}

TEST_CASE("math: max sends the gradient to every tied maximum (Chainer)", "[functions][math]") {
    const Variable x(Array::from_vector<double>({1, 3, 3, 2}, {4}));
    const Variable y = F::max(x);
    y.backward();
    CHECK(x.grad().to_vector<double>() == std::vector<double>{0, 1, 1, 0});
    const Variable z(Array::from_vector<double>({1, 0, 1, 2}, {4}));
    F::min(z).backward();
    CHECK(z.grad().to_vector<double>() == std::vector<double>{0, 1, 0, 0});
}

TEST_CASE("math: argmax and argmin", "[functions][math]") {
    const auto arg_ref = [](const Array& x, bool is_max) {
        // Over axis 1 of a 2-D array: index of the first extremum.
        const std::vector<double> v = to_doubles(x);
        const int64_t rows = x.shape()[0], cols = x.shape()[1];
        std::vector<double> out;
        for (int64_t r = 0; r < rows; ++r) {
            int64_t best = 0;
            for (int64_t c = 1; c < cols; ++c) {
                const double a = v[static_cast<size_t>(r * cols + c)], b = v[static_cast<size_t>(r * cols + best)];
                if (is_max ? a > b : a < b) best = c;
            }
            out.push_back(static_cast<double>(best));
        }
        return f64(out, {rows});
    };
    for (const bool is_max : {true, false}) {
        check_function({
            .name = is_max ? "argmax" : "argmin",
            .inputs = {{.shape = {3, 5}, .values = distinct()}},
            .func = [is_max](const Vars& xs) { return Vars{is_max ? F::argmax(xs[0], 1) : F::argmin(xs[0], -1)}; },
            .reference = [&](const Arrays& xs) { return Arrays{arg_ref(xs[0], is_max)}; },
            .backward = false,
            .double_backward = false,
        });
    }
    const Variable x(Array::from_vector<float>({0.5f, 3, 3, -1, 2, -1}, {2, 3}));
    const Variable flat = F::argmax(x);
    CHECK(flat.dtype() == Dtype::kInt32);
    CHECK(flat.ndim() == 0);
    CHECK(flat.item<int>() == 1);
    CHECK_FALSE(flat.requires_grad());
    CHECK(F::argmin(x).item<int>() == 3);
    CHECK(F::argmax(x, 0).array().to_vector<int>() == std::vector<int>{0, 0, 0});
}

TEST_CASE("math: maximum and minimum", "[functions][math]") {
    const std::vector<std::pair<Shape, Shape>> shapes{{{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{2, 1}, {1, 3}}};
    for (const auto& [sa, sb] : shapes) {
        // x1 in [-1, -0.1) U [0.1, 1) and x2 in [-0.05, 0.05): never tied.
        const InputSpec x1{.shape = sa, .values = away_from({0.0}, -1.0, 1.0, 0.1)};
        const InputSpec x2{.shape = sb, .low = -0.05, .high = 0.05};
        check_function({
            .name = "maximum",
            .inputs = {x1, x2},
            .func = [](const Vars& xs) { return Vars{F::maximum(xs[0], xs[1])}; },
            .reference = [](const Arrays& xs) { return Arrays{ref::binary(xs[0], xs[1], bigger)}; },
        });
        check_function({
            .name = "minimum",
            .inputs = {x2, x1},
            .func = [](const Vars& xs) { return Vars{F::minimum(xs[0], xs[1])}; },
            .reference = [](const Arrays& xs) { return Arrays{ref::binary(xs[0], xs[1], smaller)}; },
        });
    }
}

TEST_CASE("math: clip", "[functions][math]") {
    const std::vector<std::pair<std::optional<double>, std::optional<double>>> bounds{
        {-0.5, 0.5}, {std::nullopt, 0.3}, {-0.2, std::nullopt}};
    for (const auto& bound : bounds) {
        const std::optional<double> lo = bound.first, hi = bound.second;
        std::vector<double> kinks;
        if (lo) kinks.push_back(*lo);
        if (hi) kinks.push_back(*hi);
        check_function({
            .name = "clip",
            .inputs = {{.shape = {3, 4}, .values = away_from(kinks)}},
            .func = [lo, hi](const Vars& xs) { return Vars{F::clip(xs[0], lo, hi)}; },
            .reference =
                [lo, hi](const Arrays& xs) {
                    return Arrays{map(
                        xs[0], [&](double v) { return std::min(std::max(v, lo.value_or(-kInf)), hi.value_or(kInf)); })};
                },
        });
    }
}

TEST_CASE("math: max/min/maximum/clip errors", "[functions][math]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::max(x, 2), DimensionError);
    CHECK_THROWS_AS(F::min(Variable(ops::zeros({0}))), ValueError);
    CHECK_THROWS_AS(F::argmax(x, 3), DimensionError);
    CHECK_THROWS_AS(F::argmax(Variable(ops::zeros({2}, Dtype::kInt32))), DtypeError);
    CHECK_THROWS_AS(F::maximum(x, Variable(ops::zeros({4}))), DimensionError);
    CHECK_THROWS_WITH(F::minimum(x, Variable(ops::zeros({3}, Dtype::kFloat64))),
                      Catch::Contains("minimum: Expect: x1.dtype == x2.dtype"));
    CHECK_THROWS_AS(F::clip(x, std::nullopt, std::nullopt), ValueError);
    CHECK_THROWS_WITH(F::clip(x, 1.0, -1.0), Catch::Contains("x_min must be less than x_max"));
    CHECK_THROWS_AS(F::clip(x, 1.0, 1.0), ValueError);
}
