// local_convolution_2d (issue 23) against naive loops, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// y[n, o, i, j] = sum_{c, ky, kx} W[o, i, j, c, ky, kx] x[n, c, i sy + ky, j sx + kx] + b[o, i, j].
Array local_conv_ref(const Arrays& in, int64_t sy, int64_t sx) {
    const std::vector<double> x = to_doubles(in[0]), W = to_doubles(in[1]);
    const std::vector<double> b = in.size() > 2 ? to_doubles(in[2]) : std::vector<double>{};
    const Shape &xs = in[0].shape(), &ws = in[1].shape();
    const Shape ys{xs[0], ws[0], ws[1], ws[2]};
    std::vector<double> y;
    for (int64_t i = 0; i < shape_size(ys); ++i) {
        const std::vector<int64_t> at = unravel(i, ys);
        double acc = b.empty() ? 0.0 : b[ravel({at[1], at[2], at[3]}, {ws[0], ws[1], ws[2]})];
        for (int64_t c = 0; c < ws[3]; ++c) {
            for (int64_t ky = 0; ky < ws[4]; ++ky) {
                for (int64_t kx = 0; kx < ws[5]; ++kx) {
                    acc += W[ravel({at[1], at[2], at[3], c, ky, kx}, ws)] *
                           x[ravel({at[0], c, at[2] * sy + ky, at[3] * sx + kx}, xs)];
                }
            }
        }
        y.push_back(acc);
    }
    return f64(y, ys);
}

}  // namespace

TEST_CASE("local_convolution_2d", "[functions][connection]") {
    check_function({
        .name = "local_convolution_2d",
        .inputs = {{.shape = {2, 3, 4, 5}}, {.shape = {2, 2, 3, 3, 3, 3}}, {.shape = {2, 2, 3}}},
        .func = [](const Vars& v) { return Vars{F::local_convolution_2d(v[0], v[1], v[2])}; },
        .reference = [](const Arrays& a) { return Arrays{local_conv_ref(a, 1, 1)}; },
    });
    // Stride (2, 1), no bias, an output that leaves the last row of x unread (as Chainer allows).
    check_function({
        .name = "local_convolution_2d (stride, no bias)",
        .inputs = {{.shape = {2, 2, 6, 4}}, {.shape = {3, 2, 2, 2, 2, 3}}},
        .func =
            [](const Vars& v) {
                return Vars{F::local_convolution_2d(v[0], v[1], {}, {2, 1})};
            },
        .reference = [](const Arrays& a) { return Arrays{local_conv_ref(a, 2, 1)}; },
    });
}

TEST_CASE("local_convolution_2d: errors", "[functions][connection]") {
    const Variable x(ops::zeros({1, 2, 4, 4})), W(ops::zeros({3, 2, 2, 2, 3, 3}));
    CHECK(F::local_convolution_2d(x, W).shape() == Shape{1, 3, 2, 2});
    CHECK_THROWS_WITH(F::local_convolution_2d(x, Variable(ops::zeros({3, 2, 2, 1, 3, 3}))),
                      Catch::Contains("local_convolution_2d: Expect: x.shape[1] == W.shape[3]"));
    CHECK_THROWS_WITH(F::local_convolution_2d(x, Variable(ops::zeros({3, 3, 2, 2, 3, 3}))),
                      Catch::Contains("the output positions' windows inside x"));
    CHECK_THROWS_AS(F::local_convolution_2d(x, W, {}, 2), DimensionError);
    CHECK_THROWS_AS(F::local_convolution_2d(x, Variable(ops::zeros({3, 2, 2, 2, 3}))), DimensionError);
    CHECK_THROWS_AS(F::local_convolution_2d(x, Variable(ops::zeros({3, 2, 2, 2, 3, 3}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_WITH(F::local_convolution_2d(x, W, Variable(ops::zeros({3, 2}))),
                      Catch::Contains("local_convolution_2d: Expect: b.shape"));
    CHECK_THROWS_AS(F::local_convolution_2d(x, W, {}, 0), ValueError);
}
