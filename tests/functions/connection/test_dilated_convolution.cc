// dilated_convolution_2d: forward against the naive convolution loops and hand-computed
// values, gradients, double backprop, errors named by the function.

#include <catch2/catch.hpp>

#include "core/ops/convolution.h"
#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/functions/connection/convolution_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("dilated_convolution_2d", "[functions][connection]") {
    struct Case {
        Shape x, w, stride, pad, dilate;
        bool cover_all;
        bool bias;
    };
    for (const Case& c : {Case{{2, 3, 6, 5}, {2, 3, 3, 2}, {1, 1}, {1, 0}, {2, 2}, false, true},
                          Case{{1, 2, 7, 6}, {3, 2, 2, 2}, {2, 1}, {0, 1}, {3, 1}, true, false}}) {
        std::vector<InputSpec> inputs{{.shape = c.x}, {.shape = c.w}};
        if (c.bias) inputs.push_back({.shape = {c.w[0]}});
        Shape ys{c.x[0], c.w[0]};
        for (int i = 0; i < 2; ++i) {
            ys.push_back(ops::conv_outsize(c.x[i + 2], c.w[i + 2], c.stride[i], c.pad[i], c.cover_all, c.dilate[i]));
        }
        check_function({
            .name = "dilated_convolution_2d",
            .inputs = inputs,
            .func =
                [&c](const Vars& xs) {
                    const Variable b = xs.size() > 2 ? xs[2] : Variable();
                    return Vars{F::dilated_convolution_2d(
                        xs[0], xs[1], b,
                        {.stride = c.stride, .pad = c.pad, .dilate = c.dilate, .cover_all = c.cover_all})};
                },
            .reference =
                [&c, ys](const Arrays& xs) {
                    const ConvReferenceParams p{.stride = c.stride, .pad = c.pad, .dilate = c.dilate};
                    const auto b = xs.size() > 2 ? to_doubles(xs[2]) : std::vector<double>{};
                    return Arrays{f64(conv_reference(to_doubles(xs[0]), c.x, to_doubles(xs[1]), c.w, b, ys, p), ys)};
                },
        });
    }
}

TEST_CASE("dilated_convolution_2d: hand-computed values", "[functions][connection]") {
    // y[o] = x[o] * 1 + x[o + 2] * 10 with the width dilated by 2.
    const Variable x(make_array({1, 2, 3, 4, 5}, {1, 1, 1, 5}, Dtype::kFloat64));
    const Variable W(make_array({1, 10}, {1, 1, 1, 2}, Dtype::kFloat64));
    check_allclose(F::dilated_convolution_2d(x, W, {}, {.dilate = {1, 2}}).array(), {31, 42, 53}, {1, 1, 1, 3}, {0, 0});
    const Variable b(make_array({0.5}, {1}, Dtype::kFloat64));
    check_allclose(F::dilated_convolution_2d(x, W, b, {.stride = 2, .dilate = {1, 2}}).array(), {31.5, 53.5},
                   {1, 1, 1, 2}, {0, 0});
}

TEST_CASE("dilated_convolution_2d: bad input is an error naming the function", "[functions][connection]") {
    const Variable x(ops::zeros({1, 2, 5, 5})), W(ops::zeros({3, 2, 2, 2}));
    CHECK_THROWS_WITH(F::dilated_convolution_2d(Variable(ops::zeros({2, 5, 5})), W),
                      Catch::Contains("dilated_convolution_2d: Expect: x.ndim == 4, Actual: 3"));
    CHECK_THROWS_AS(F::dilated_convolution_2d(x, Variable(ops::zeros({3, 2, 2, 2}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_WITH(F::dilated_convolution_2d(x, W, {}, {.dilate = {1, 2, 3}}),
                      Catch::Contains("dilated_convolution_2d"));
    CHECK_THROWS_AS(F::dilated_convolution_2d(x, Variable(ops::zeros({3, 4, 2, 2}))), DimensionError);
    CHECK_THROWS_AS(F::dilated_convolution_2d(x, W, {}, {.dilate = 5}), DimensionError);  // window past the input
}
