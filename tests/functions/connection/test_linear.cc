// linear: forward against a float64 loop reference, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// y[n, o] = sum_i x[n, i] W[o, i] (+ b[o]) with x flattened to (batch, in).
Array linear_reference(const Arrays& xs, int64_t batch, const Shape& y_shape) {
    const std::vector<double> x = to_doubles(xs[0]), W = to_doubles(xs[1]);
    const int64_t out = xs[1].shape()[0], in = xs[1].shape()[1];
    std::vector<double> y(static_cast<size_t>(batch * out));
    for (int64_t n = 0; n < batch; ++n) {
        for (int64_t o = 0; o < out; ++o) {
            double acc = xs.size() == 3 ? to_doubles(xs[2])[static_cast<size_t>(o)] : 0.0;
            for (int64_t i = 0; i < in; ++i) {
                acc += x[static_cast<size_t>(n * in + i)] * W[static_cast<size_t>(o * in + i)];
            }
            y[static_cast<size_t>(n * out + o)] = acc;
        }
    }
    return f64(y, y_shape);
}

}  // namespace

TEST_CASE("linear", "[functions][connection]") {
    for (const bool with_bias : {true, false}) {
        std::vector<InputSpec> inputs{{.shape = {3, 4}}, {.shape = {2, 4}}};
        if (with_bias) inputs.push_back({.shape = {2}});
        check_function({
            .name = with_bias ? "linear" : "linear (no bias)",
            .inputs = inputs,
            .func = [](const Vars& xs) { return Vars{F::linear(xs[0], xs[1], xs.size() == 3 ? xs[2] : Variable())}; },
            .reference =
                [](const Arrays& xs) {
                    return Arrays{linear_reference(xs, 3, {3, 2})};
                },
        });
    }
}

TEST_CASE("linear: x of more than 2 dimensions is flattened after the batch axis", "[functions][connection]") {
    check_function({
        .name = "linear (x 3-D)",
        .inputs = {{.shape = {2, 2, 3}}, {.shape = {3, 6}}, {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{F::linear(xs[0], xs[1], xs[2])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{linear_reference(xs, 2, {2, 3})};
            },
    });
}

TEST_CASE("linear: n_batch_axes", "[functions][connection]") {
    check_function({
        .name = "linear (n_batch_axes=2)",
        .inputs = {{.shape = {2, 3, 4}}, {.shape = {5, 4}}, {.shape = {5}}},
        .func = [](const Vars& xs) { return Vars{F::linear(xs[0], xs[1], xs[2], 2)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{linear_reference(xs, 6, {2, 3, 5})};
            },
    });
}

TEST_CASE("linear: empty batch", "[functions][connection]") {
    check_function({
        .name = "linear (batch 0)",
        .inputs = {{.shape = {0, 4}}, {.shape = {2, 4}}, {.shape = {2}}},
        .func = [](const Vars& xs) { return Vars{F::linear(xs[0], xs[1], xs[2])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{linear_reference(xs, 0, {0, 2})};
            },
        .backward = false,
        .double_backward = false,
    });
}

TEST_CASE("linear: errors", "[functions][connection]") {
    const Variable x(ops::zeros({3, 4})), W(ops::zeros({2, 5})), W_ok(ops::zeros({2, 4}));
    CHECK_THROWS_WITH(F::linear(x, W), Catch::Contains("x.shape[1] == W.shape[1]") && Catch::Contains("4 != 5"));
    CHECK_THROWS_AS(F::linear(x, W), DimensionError);
    CHECK_THROWS_AS(F::linear(x, W_ok, Variable(ops::zeros({3}))), DimensionError);
    CHECK_THROWS_AS(F::linear(x, W_ok, Variable(ops::zeros({2}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::linear(Variable(ops::zeros({3, 4}, Dtype::kInt32)), W_ok), DtypeError);
    CHECK_THROWS_AS(F::linear(x, Variable(ops::zeros({2, 4}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::linear(x, W_ok, Variable(), 0), ValueError);
    CHECK_THROWS_AS(F::linear(Variable(ops::zeros({4})), W_ok), DimensionError);
}
