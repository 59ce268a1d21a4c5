// sigmoid, hard_sigmoid, tanh, softplus, gelu, swish: forward against float64
// references, gradients, double backprop, errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("sigmoid", "[functions][activation]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}, Shape{0, 2}}) {
        check_function({
            .name = "sigmoid",
            .inputs = {{.shape = shape, .low = -3, .high = 3}},
            .func = [](const Vars& xs) { return Vars{F::sigmoid(xs[0])}; },
            .reference =
                [](const Arrays& xs) { return Arrays{map(xs[0], [](double v) { return 1 / (1 + std::exp(-v)); })}; },
            .backward = shape_size(shape) > 0,
            .double_backward = shape_size(shape) > 0,
        });
    }
}

TEST_CASE("hard_sigmoid", "[functions][activation]") {
    check_function({
        .name = "hard_sigmoid",
        .inputs = {{.shape = {4, 5}, .values = away_from({-2.5, 2.5}, -4, 4, 0.1)}},
        .func = [](const Vars& xs) { return Vars{F::hard_sigmoid(xs[0])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{map(xs[0], [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); })};
            },
    });
}

TEST_CASE("tanh", "[functions][activation]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}}) {
        check_function({
            .name = "tanh",
            .inputs = {{.shape = shape, .low = -2, .high = 2}},
            .func = [](const Vars& xs) { return Vars{F::tanh(xs[0])}; },
            .reference = [](const Arrays& xs) { return Arrays{map(xs[0], [](double v) { return std::tanh(v); })}; },
        });
    }
}

TEST_CASE("softplus", "[functions][activation]") {
    for (const double beta : {1.0, 2.5, -1.0}) {
        check_function({
            .name = "softplus",
            .inputs = {{.shape = {3, 4}, .low = -3, .high = 3}},
            .func = [beta](const Vars& xs) { return Vars{F::softplus(xs[0], beta)}; },
            .reference =
                [beta](const Arrays& xs) {
                    return Arrays{map(xs[0], [beta](double v) { return std::log1p(std::exp(beta * v)) / beta; })};
                },
        });
    }
    // No overflow far from 0.
    const Variable x(Array::from_vector<float>({200.f, -200.f}, {2}));
    const std::vector<double> y = to_doubles(F::softplus(x).array());
    CHECK(y[0] == Approx(200.0));
    CHECK(y[1] == Approx(0.0).margin(1e-30));
    CHECK_THROWS_AS(F::softplus(x, 0.0), ValueError);
}

TEST_CASE("gelu", "[functions][activation]") {
    check_function({
        .name = "gelu",
        .inputs = {{.shape = {3, 4}, .low = -3, .high = 3}},
        .func = [](const Vars& xs) { return Vars{F::gelu(xs[0])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{map(xs[0], [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); })};
            },
    });
}

TEST_CASE("swish", "[functions][activation]") {
    // beta of shape (3,) broadcast along axis 1 of (2, 3, 2); and a 0-d beta.
    for (const Shape& beta_shape : {Shape{3}, Shape{}, Shape{3, 2}}) {
        check_function({
            .name = "swish",
            .inputs = {{.shape = {2, 3, 2}, .low = -2, .high = 2}, {.shape = beta_shape, .low = 0.5, .high = 1.5}},
            .func = [](const Vars& xs) { return Vars{F::swish(xs[0], xs[1])}; },
            .reference =
                [](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]), b = to_doubles(xs[1]);
                    std::vector<double> y(x.size());
                    for (size_t i = 0; i < x.size(); ++i) {
                        const size_t c = i / 2 % 3, bi = b.size() == 1 ? 0 : b.size() == 3 ? c : i % 6;
                        y[i] = x[i] / (1 + std::exp(-b[bi] * x[i]));
                    }
                    return Arrays{f64(y, xs[0].shape())};
                },
        });
    }
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::swish(x, Variable(ops::ones({4}))), DimensionError);
    CHECK_THROWS_AS(F::swish(x, Variable(ops::ones({3}, Dtype::kFloat64))), DtypeError);
}

TEST_CASE("sigmoid family: integer input is a dtype error", "[functions][activation]") {
    const Variable xi(ops::zeros({2}, Dtype::kInt64));
    CHECK_THROWS_AS(F::sigmoid(xi), DtypeError);
    CHECK_THROWS_AS(F::hard_sigmoid(xi), DtypeError);
    CHECK_THROWS_AS(F::tanh(xi), DtypeError);
    CHECK_THROWS_AS(F::softplus(xi), DtypeError);
    CHECK_THROWS_WITH(F::gelu(xi), Catch::Contains("gelu"));
}
