// leaky_relu, elu, selu, clipped_relu: forward against float64 references, gradients,
// double backprop, errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("leaky_relu", "[functions][activation]") {
    for (const double slope : {0.2, -0.5}) {
        for (const Shape& shape : {Shape{3, 4}, Shape{}, Shape{2, 0, 3}}) {
            check_function({
                .name = "leaky_relu",
                .inputs = {{.shape = shape, .values = away_from({0.0})}},
                .func = [slope](const Vars& xs) { return Vars{F::leaky_relu(xs[0], slope)}; },
                .reference =
                    [slope](const Arrays& xs) {
                        return Arrays{map(xs[0], [slope](double v) { return v >= 0 ? v : slope * v; })};
                    },
                .backward = shape_size(shape) > 0,
                .double_backward = shape_size(shape) > 0,
            });
        }
    }
}

TEST_CASE("elu", "[functions][activation]") {
    for (const double alpha : {1.0, 0.5}) {
        check_function({
            .name = "elu",
            .inputs = {{.shape = {3, 4}, .low = -2, .high = 2, .values = away_from({0.0}, -2, 2)}},
            .func = [alpha](const Vars& xs) { return Vars{F::elu(xs[0], alpha)}; },
            .reference =
                [alpha](const Arrays& xs) {
                    return Arrays{map(xs[0], [alpha](double v) { return v > 0 ? v : alpha * (std::exp(v) - 1); })};
                },
        });
    }
    // Large positive inputs: no overflow on the unused side.
    const Variable x(Array::from_vector<float>({100.f, -100.f}, {2}));
    sum(F::elu(x)).backward();
    const std::vector<double> g = to_doubles(x.grad());
    CHECK(g[0] == 1.0);
    CHECK(std::abs(g[1]) < 1e-30);
}

TEST_CASE("selu", "[functions][activation]") {
    const double alpha = 1.6732632423543772, scale = 1.0507009873554805;
    check_function({
        .name = "selu",
        .inputs = {{.shape = {2, 3}, .values = away_from({0.0}, -2, 2)}},
        .func = [](const Vars& xs) { return Vars{F::selu(xs[0])}; },
        .reference =
            [=](const Arrays& xs) {
                return Arrays{map(xs[0], [=](double v) { return scale * (v > 0 ? v : alpha * (std::exp(v) - 1)); })};
            },
    });
}

TEST_CASE("clipped_relu", "[functions][activation]") {
    check_function({
        .name = "clipped_relu",
        .inputs = {{.shape = {3, 5}, .values = away_from({0.0, 0.75}, -1, 1.5)}},
        .func = [](const Vars& xs) { return Vars{F::clipped_relu(xs[0], 0.75)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{map(xs[0], [](double v) { return std::min(std::max(v, 0.0), 0.75); })};
            },
    });
    CHECK_THROWS_AS(F::clipped_relu(Variable(ops::zeros({2})), 0.0), ValueError);
}

TEST_CASE("leaky_relu, elu, clipped_relu: integer input is a dtype error", "[functions][activation]") {
    const Variable xi(ops::zeros({2}, Dtype::kInt32));
    CHECK_THROWS_AS(F::leaky_relu(xi), DtypeError);
    CHECK_THROWS_AS(F::elu(xi), DtypeError);
    CHECK_THROWS_AS(F::selu(xi), DtypeError);
    CHECK_THROWS_WITH(F::clipped_relu(xi), Catch::Contains("clipped_relu") && Catch::Contains("int32"));
}
