// squared_difference, linear_interpolate, identity, bias, scale.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("math: squared_difference", "[functions][math]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}}) {
        check_function({
            .name = "squared_difference",
            .inputs = {{.shape = shape}, {.shape = shape}},
            .func = [](const Vars& xs) { return Vars{F::squared_difference(xs[0], xs[1])}; },
            .reference =
                [](const Arrays& xs) {
                    const std::vector<double> a = to_doubles(xs[0]), b = to_doubles(xs[1]);
                    std::vector<double> out;
                    for (size_t i = 0; i < a.size(); ++i) out.push_back((a[i] - b[i]) * (a[i] - b[i]));
                    return Arrays{f64(out, xs[0].shape())};
                },
        });
    }
    const Variable a(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::squared_difference(a, Variable(ops::zeros({3}))),
                      Catch::Contains("squared_difference: Expect: x1.shape == x2.shape"));
    CHECK_THROWS_AS(F::squared_difference(a, Variable(ops::zeros({2, 3}, Dtype::kFloat64))), DtypeError);
}

TEST_CASE("math: linear_interpolate", "[functions][math]") {
    check_function({
        .name = "linear_interpolate",
        .inputs = {{.shape = {2, 3}, .low = 0.0, .high = 1.0}, {.shape = {2, 3}}, {.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::linear_interpolate(xs[0], xs[1], xs[2])}; },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> p = to_doubles(xs[0]), x = to_doubles(xs[1]), y = to_doubles(xs[2]);
                std::vector<double> out;
                for (size_t i = 0; i < p.size(); ++i) out.push_back(p[i] * x[i] + (1 - p[i]) * y[i]);
                return Arrays{f64(out, xs[0].shape())};
            },
    });
    const Variable a(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::linear_interpolate(a, a, Variable(ops::zeros({3}))), DimensionError);
    CHECK_THROWS_AS(F::linear_interpolate(Variable(ops::zeros({2, 3}, Dtype::kFloat64)), a, a), DtypeError);
}

TEST_CASE("math: identity", "[functions][math]") {
    check_function({
        .name = "identity",
        .inputs = {{.shape = {2, 3}}, {.shape = {4}}},
        .func = [](const Vars& xs) { return F::identity(xs); },
        .reference =
            [](const Arrays& xs) {
                return Arrays{xs[0], xs[1]};
            },
    });
    check_function({
        .name = "identity single",
        .inputs = {{.shape = {}}},
        .func = [](const Vars& xs) { return Vars{F::identity(xs[0])}; },
        .reference = [](const Arrays& xs) { return Arrays{xs[0]}; },
    });
    const Variable x(ops::ones({2}));
    const Variable y = F::identity(x);
    CHECK_FALSE(y == x);
    CHECK(y.array().raw_data() == x.array().raw_data());  // aliases, as Chainer
}

namespace {

// x op y with y aligned to x's axes [axis, axis + y.ndim).
Array aligned_ref(const Array& x, const Array& y, int axis, bool multiply) {
    const std::vector<double> vx = to_doubles(x), vy = to_doubles(y);
    std::vector<double> out;
    for (int64_t i = 0; i < x.size(); ++i) {
        const auto index = unravel(i, x.shape());
        std::vector<int64_t> yi(index.begin() + axis, index.begin() + axis + y.ndim());
        const double b = vy[static_cast<size_t>(ravel(yi, y.shape()))];
        out.push_back(multiply ? vx[static_cast<size_t>(i)] * b : vx[static_cast<size_t>(i)] + b);
    }
    return f64(out, x.shape());
}

}  // namespace

TEST_CASE("math: bias and scale", "[functions][math]") {
    struct Case {
        Shape x, y;
        int axis;
    };
    for (const Case& c :
         {Case{{2, 3, 4}, {3}, 1}, Case{{2, 3, 4}, {3, 4}, 1}, Case{{2, 3}, {2}, 0}, Case{{2, 3}, {}, 2}}) {
        for (const bool multiply : {false, true}) {
            check_function({
                .name = multiply ? "scale" : "bias",
                .inputs = {{.shape = c.x}, {.shape = c.y}},
                .func =
                    [&](const Vars& xs) {
                        return Vars{multiply ? F::scale(xs[0], xs[1], c.axis) : F::bias(xs[0], xs[1], c.axis)};
                    },
                .reference = [&](const Arrays& xs) { return Arrays{aligned_ref(xs[0], xs[1], c.axis, multiply)}; },
            });
        }
    }
    const Variable x(ops::zeros({2, 3, 4}));
    CHECK_THROWS_WITH(F::bias(x, Variable(ops::zeros({4}))), Catch::Contains("bias: Expect: x.shape[1:2] == y.shape"));
    CHECK_THROWS_AS(F::scale(x, Variable(ops::zeros({3, 4})), 2), DimensionError);
    CHECK_THROWS_AS(F::scale(x, Variable(ops::zeros({3}, Dtype::kFloat64))), DtypeError);
}

TEST_CASE("math: batch_l2_norm_squared", "[functions][math]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{2, 3, 2}, Shape{4}}) {
        check_function({
            .name = "batch_l2_norm_squared",
            .inputs = {{.shape = shape}},
            .func = [](const Vars& xs) { return Vars{F::batch_l2_norm_squared(xs[0])}; },
            .reference =
                [](const Arrays& xs) {
                    const std::vector<double> a = to_doubles(xs[0]);
                    const int64_t n = xs[0].shape()[0], per = static_cast<int64_t>(a.size()) / n;
                    std::vector<double> out(static_cast<size_t>(n), 0.0);
                    for (size_t i = 0; i < a.size(); ++i) out[i / static_cast<size_t>(per)] += a[i] * a[i];
                    return Arrays{f64(out, Shape{n})};
                },
        });
    }
    CHECK_THROWS_WITH(F::batch_l2_norm_squared(Variable(ops::zeros({}))),
                      Catch::Contains("batch_l2_norm_squared: Expect: x.ndim >= 1"));
    CHECK_THROWS_AS(F::batch_l2_norm_squared(Variable(ops::zeros({2}, Dtype::kInt32))), DtypeError);
}
