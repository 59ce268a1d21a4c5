// forget: the same outputs and gradients as calling the function directly, no graph kept
// inside, several outputs with only some used, and its errors (double backprop, bad func).

#include <catch2/catch.hpp>

#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "autograd/grad.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/math.h"
#include "functions/util.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Vars two_outputs(const Vars& xs) { return {F::tanh(xs[0] * xs[1]), F::exp(xs[0]) + xs[1]}; }

}  // namespace

TEST_CASE("forget", "[functions][util]") {
    check_function({
        .name = "forget",
        .inputs = {{.shape = {2, 3}}, {.shape = {2, 3}}},
        .func = [](const Vars& xs) { return F::forget(two_outputs, xs); },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> a = to_doubles(xs[0]), b = to_doubles(xs[1]);
                std::vector<double> y0, y1;
                for (size_t k = 0; k < a.size(); ++k) {
                    y0.push_back(std::tanh(a[k] * b[k]));
                    y1.push_back(std::exp(a[k]) + b[k]);
                }
                return Arrays{f64(y0, xs[0].shape()), f64(y1, xs[0].shape())};
            },
        .double_backward = false,  // Chainer's forget refuses double backprop
    });
}

TEST_CASE("forget: the gradient of one output, recomputed", "[functions][util]") {
    const Variable a(make_array({0.5, -1.0}, {2}, Dtype::kFloat64)), b(make_array({2.0, 3.0}, {2}, Dtype::kFloat64));
    int calls = 0;
    const auto func = [&calls](const Vars& xs) {
        ++calls;
        CHECK(xs[0].creator() == nullptr);  // fresh leaves, never the caller's graph
        return two_outputs(xs);
    };
    const Vars ys = F::forget(func, {a, b});
    CHECK(calls == 1);
    CHECK(ys[0].creator()->label() == "Forget");
    const Vars expected = grad({two_outputs({a, b})[1]}, {a, b}, {Variable(ops::ones({2}, Dtype::kFloat64))});
    const Vars got = grad({ys[1]}, {a, b}, {Variable(ops::ones({2}, Dtype::kFloat64))});
    CHECK(calls == 2);
    CHECK(to_doubles(got[0].array()) == to_doubles(expected[0].array()));
    CHECK(to_doubles(got[1].array()) == to_doubles(expected[1].array()));
}

TEST_CASE("forget: errors", "[functions][util]") {
    const Variable a(make_array({0.5, -1.0}, {2}, Dtype::kFloat64));
    CHECK_THROWS_WITH(F::forget([](const Vars&) { return Vars{}; }, {a}),
                      Catch::Contains("forget: Expect: func to return at least one Variable"));
    CHECK_THROWS_AS(F::forget([](const Vars&) { return Vars{Variable()}; }, {a}), ValueError);
    CHECK_THROWS_AS(F::forget(F::ForgetFunction{}, {a}), ValueError);
    const Vars y = F::forget([](const Vars& xs) { return Vars{xs[0] * xs[0]}; }, {a});
    CHECK_THROWS_WITH(grad(y, {a}, {Variable(ops::ones({2}, Dtype::kFloat64))}, {.enable_double_backprop = true}),
                      Catch::Contains("forget: double backpropagation through forget is not allowed"));
}
