// convolution_2d and convolution_nd: forward against naive float64 loops, gradients,
// double backprop (through the deconvolution and filter-gradient nodes), errors.

#include <catch2/catch.hpp>

#include "core/ops/convolution.h"
#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/functions/connection/convolution_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct Case {
    std::string name;
    Shape x, w;
    Shape stride, pad, dilate;
    int64_t groups = 1;
    bool cover_all = false;
    bool bias = true;
};

Shape out_shape(const Case& c) {
    Shape y{c.x[0], c.w[0]};
    for (int i = 0; i < c.x.size() - 2; ++i) {
        y.push_back(ops::conv_outsize(c.x[i + 2], c.w[i + 2], c.stride[i], c.pad[i], c.cover_all, c.dilate[i]));
    }
    return y;
}

void check_convolution(const Case& c, bool two_d) {
    std::vector<InputSpec> inputs{{.shape = c.x}, {.shape = c.w}};
    if (c.bias) inputs.push_back({.shape = {c.w[0]}});
    const F::ConvolutionOptions options{
        .stride = c.stride, .pad = c.pad, .cover_all = c.cover_all, .dilate = c.dilate, .groups = c.groups};
    check_function({
        .name = c.name,
        .inputs = inputs,
        .func =
            [=](const Vars& xs) {
                const Variable b = xs.size() > 2 ? xs[2] : Variable();
                return Vars{two_d ? F::convolution_2d(xs[0], xs[1], b, options)
                                  : F::convolution_nd(xs[0], xs[1], b, options)};
            },
        .reference =
            [=](const Arrays& xs) {
                const ConvReferenceParams p{.stride = c.stride, .pad = c.pad, .dilate = c.dilate, .groups = c.groups};
                const Shape ys = out_shape(c);
                const auto b = xs.size() > 2 ? to_doubles(xs[2]) : std::vector<double>{};
                return Arrays{f64(conv_reference(to_doubles(xs[0]), c.x, to_doubles(xs[1]), c.w, b, ys, p), ys)};
            },
    });
}

}  // namespace

TEST_CASE("convolution_2d", "[functions][connection]") {
    check_convolution({"convolution_2d", {2, 2, 4, 3}, {3, 2, 2, 2}, {1, 1}, {0, 0}, {1, 1}}, true);
    check_convolution({"convolution_2d stride pad", {1, 2, 5, 4}, {2, 2, 3, 2}, {2, 1}, {1, 1}, {1, 1}}, true);
}

TEST_CASE("convolution_2d: cover_all, dilate, groups, no bias", "[functions][connection]") {
    check_convolution({"convolution_2d cover_all", {1, 1, 5, 5}, {2, 1, 3, 3}, {2, 2}, {0, 0}, {1, 1}, 1, true, false},
                      true);
    check_convolution({"convolution_2d dilate groups", {1, 4, 5, 4}, {2, 2, 2, 2}, {1, 1}, {1, 0}, {2, 1}, 2}, true);
}

TEST_CASE("convolution_nd: 1-D and 3-D", "[functions][connection]") {
    check_convolution({"convolution_nd 1d", {2, 2, 6}, {3, 2, 3}, {2}, {1}, {1}}, false);
    check_convolution({"convolution_nd 3d", {1, 2, 3, 3, 2}, {2, 2, 2, 2, 1}, {1, 2, 1}, {0, 1, 0}, {1, 1, 1}}, false);
}

TEST_CASE("convolution_2d: int or tuple options", "[functions][connection]") {
    const Variable x(ops::ones({1, 1, 5, 5})), W(ops::ones({1, 1, 3, 3}));
    CHECK(F::convolution_2d(x, W, Variable(), {.stride = 2, .pad = 1}).shape() == Shape{1, 1, 3, 3});
    CHECK(F::convolution_2d(x, W, Variable(), {.stride = {2, 1}}).shape() == Shape{1, 1, 2, 3});
    CHECK(F::convolution_2d(x, W).shape() == Shape{1, 1, 3, 3});
    CHECK(F::convolution_2d(x, W, Variable(), {.stride = 2, .cover_all = true}).shape() == Shape{1, 1, 2, 2});
    CHECK(F::convolution_2d(x, W, Variable(), {.stride = 3}).shape() == Shape{1, 1, 1, 1});
    CHECK(F::convolution_2d(x, W, Variable(), {.stride = 3, .cover_all = true}).shape() == Shape{1, 1, 2, 2});
}

TEST_CASE("convolution_2d: type check errors", "[functions][connection]") {
    const Variable x(ops::ones({1, 4, 5, 5})), W(ops::ones({2, 4, 3, 3}));
    CHECK_THROWS_WITH(F::convolution_2d(Variable(ops::ones({4, 5, 5})), W), Catch::Contains("x.ndim == 4"));
    CHECK_THROWS_AS(F::convolution_2d(Variable(ops::ones({4, 5, 5})), W), DimensionError);
    CHECK_THROWS_WITH(F::convolution_2d(x, Variable(ops::ones({2, 3, 3, 3}))),
                      Catch::Contains("x.shape[1] == W.shape[1] * groups"));
    CHECK_THROWS_WITH(F::convolution_2d(x, Variable(ops::ones({3, 2, 3, 3})), Variable(), {.groups = 2}),
                      Catch::Contains("multiple of groups=2"));
    CHECK_THROWS_AS(F::convolution_2d(Variable(ops::ones({1, 4, 5, 5}, Dtype::kInt32)), W), DtypeError);
    CHECK_THROWS_AS(F::convolution_2d(x, Variable(ops::ones({2, 4, 3, 3}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::convolution_2d(x, W, Variable(ops::ones({3}))), DimensionError);
    CHECK_THROWS_AS(F::convolution_2d(x, W, Variable(), {.stride = {1, 1, 1}}), ValueError);
    CHECK_THROWS_AS(F::convolution_nd(Variable(ops::ones({1, 4, 5, 5, 5, 5})), Variable(ops::ones({2, 4, 3, 3, 3, 3}))),
                    DimensionError);
}

TEST_CASE("convolution_2d: empty batch", "[functions][connection]") {
    const Variable x(ops::ones({0, 2, 4, 4})), W(ops::ones({3, 2, 3, 3})), b(ops::ones({3}));
    const Variable y = F::convolution_2d(x, W, b);
    CHECK(y.shape() == Shape{0, 3, 2, 2});
    y.set_grad(ops::ones(y.shape()));
    y.backward();
    CHECK(x.grad().shape() == x.shape());
    CHECK(to_doubles(W.grad()) == std::vector<double>(54, 0.0));
    CHECK(to_doubles(b.grad()) == std::vector<double>(3, 0.0));
}
