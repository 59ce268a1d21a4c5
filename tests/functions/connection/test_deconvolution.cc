// deconvolution_2d, deconvolution_nd and depthwise_convolution_2d: forward against naive
// float64 loops, gradients, double backprop, outsize and errors.

#include <catch2/catch.hpp>

#include "core/ops/convolution.h"
#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/functions/connection/convolution_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct DeconvCase {
    std::string name;
    Shape x, w, stride, pad, dilate;
    int64_t groups = 1;
    std::optional<Shape> outsize{};
    bool bias = true;
};

Shape out_shape(const DeconvCase& c) {
    Shape y{c.x[0], c.w[1] * c.groups};
    for (int i = 0; i < c.x.size() - 2; ++i) {
        y.push_back(c.outsize ? (*c.outsize)[i]
                              : ops::deconv_outsize(c.x[i + 2], c.w[i + 2], c.stride[i], c.pad[i], false, c.dilate[i]));
    }
    return y;
}

void check_deconvolution(const DeconvCase& c, bool two_d) {
    std::vector<InputSpec> inputs{{.shape = c.x}, {.shape = c.w}};
    if (c.bias) inputs.push_back({.shape = {c.w[1] * c.groups}});
    const F::DeconvolutionOptions options{
        .stride = c.stride, .pad = c.pad, .outsize = c.outsize, .dilate = c.dilate, .groups = c.groups};
    check_function({
        .name = c.name,
        .inputs = inputs,
        .func =
            [=](const Vars& xs) {
                const Variable b = xs.size() > 2 ? xs[2] : Variable();
                return Vars{two_d ? F::deconvolution_2d(xs[0], xs[1], b, options)
                                  : F::deconvolution_nd(xs[0], xs[1], b, options)};
            },
        .reference =
            [=](const Arrays& xs) {
                const ConvReferenceParams p{.stride = c.stride, .pad = c.pad, .dilate = c.dilate, .groups = c.groups};
                const Shape ys = out_shape(c);
                std::vector<double> y =
                    conv_backward_data_reference(to_doubles(xs[0]), c.x, to_doubles(xs[1]), c.w, ys, p);
                if (xs.size() > 2) {
                    const auto b = to_doubles(xs[2]);
                    const int64_t plane = shape_size(ys) / (ys[0] * ys[1]);
                    for (size_t i = 0; i < y.size(); ++i) y[i] += b[(static_cast<int64_t>(i) / plane) % ys[1]];
                }
                return Arrays{f64(y, ys)};
            },
    });
}

}  // namespace

TEST_CASE("deconvolution_2d", "[functions][connection]") {
    check_deconvolution({"deconvolution_2d", {2, 3, 3, 2}, {3, 2, 2, 2}, {1, 1}, {0, 0}, {1, 1}}, true);
    check_deconvolution({"deconvolution_2d stride pad", {1, 2, 3, 2}, {2, 2, 3, 2}, {2, 1}, {1, 0}, {1, 1}}, true);
}

TEST_CASE("deconvolution_2d: outsize (cover_all), dilate, groups", "[functions][connection]") {
    // x 2x2 with k 3, s 2 gives 5 by default; 4 maps back to 2 only with cover_all.
    check_deconvolution(
        {"deconvolution_2d outsize", {1, 1, 2, 2}, {1, 2, 3, 3}, {2, 2}, {0, 0}, {1, 1}, 1, Shape{4, 4}, false}, true);
    check_deconvolution({"deconvolution_2d dilate groups", {1, 4, 3, 2}, {4, 1, 2, 2}, {1, 1}, {1, 0}, {2, 1}, 2},
                        true);
}

TEST_CASE("deconvolution_nd: 1-D and 3-D", "[functions][connection]") {
    check_deconvolution({"deconvolution_nd 1d", {2, 2, 3}, {2, 3, 3}, {2}, {1}, {1}}, false);
    check_deconvolution({"deconvolution_nd 3d", {1, 2, 2, 2, 2}, {2, 1, 2, 1, 2}, {1, 2, 1}, {0, 0, 1}, {1, 1, 1}},
                        false);
}

TEST_CASE("deconvolution_2d: errors", "[functions][connection]") {
    const Variable x(ops::ones({1, 3, 4, 4})), W(ops::ones({3, 2, 3, 3}));
    CHECK(F::deconvolution_2d(x, W).shape() == Shape{1, 2, 6, 6});
    CHECK_THROWS_WITH(F::deconvolution_2d(x, Variable(ops::ones({2, 2, 3, 3}))),
                      Catch::Contains("x.shape[1] == W.shape[0]"));
    CHECK_THROWS_AS(F::deconvolution_2d(x, W, Variable(), {.outsize = Shape{9, 9}}), DimensionError);
    CHECK_THROWS_AS(F::deconvolution_2d(x, W, Variable(ops::ones({3}))), DimensionError);
    CHECK_THROWS_AS(F::deconvolution_2d(Variable(ops::ones({3, 4, 4})), Variable(ops::ones({3, 2, 3}))),
                    DimensionError);
    CHECK_THROWS_AS(F::deconvolution_2d(x, Variable(ops::ones({3, 2, 3, 3}, Dtype::kFloat64))), DtypeError);
}

TEST_CASE("depthwise_convolution_2d", "[functions][connection]") {
    // W (multiplier 2, c_in 3, 2, 2): output channel c * 2 + m uses W[m, c].
    const Shape xs{2, 3, 4, 3}, ws{2, 3, 2, 2};
    check_function({
        .name = "depthwise_convolution_2d",
        .inputs = {{.shape = xs}, {.shape = ws}, {.shape = {6}}},
        .func =
            [](const Vars& v) { return Vars{F::depthwise_convolution_2d(v[0], v[1], v[2], {.stride = 1, .pad = 1})}; },
        .reference =
            [=](const Arrays& v) {
                const auto x = to_doubles(v[0]), w = to_doubles(v[1]), b = to_doubles(v[2]);
                const Shape ys{2, 6, 5, 4};
                std::vector<double> y(static_cast<size_t>(shape_size(ys)));
                for (int64_t n = 0; n < 2; ++n)
                    for (int64_t c = 0; c < 3; ++c)
                        for (int64_t m = 0; m < 2; ++m)
                            for (int64_t oy = 0; oy < 5; ++oy)
                                for (int64_t ox = 0; ox < 4; ++ox) {
                                    double acc = b[c * 2 + m];
                                    for (int64_t ky = 0; ky < 2; ++ky)
                                        for (int64_t kx = 0; kx < 2; ++kx) {
                                            const int64_t iy = oy - 1 + ky, ix = ox - 1 + kx;
                                            if (iy < 0 || iy >= 4 || ix < 0 || ix >= 3) continue;
                                            acc +=
                                                x[((n * 3 + c) * 4 + iy) * 3 + ix] * w[((m * 3 + c) * 2 + ky) * 2 + kx];
                                        }
                                    y[(((n * 6) + c * 2 + m) * 5 + oy) * 4 + ox] = acc;
                                }
                return Arrays{f64(y, ys)};
            },
    });
    const Variable x(ops::ones({1, 3, 4, 4}));
    CHECK_THROWS_WITH(F::depthwise_convolution_2d(x, Variable(ops::ones({2, 2, 3, 3}))),
                      Catch::Contains("x.shape[1] == W.shape[1]"));
    CHECK_THROWS_AS(F::depthwise_convolution_2d(x, Variable(ops::ones({2, 3, 3, 3})), Variable(ops::ones({3}))),
                    DimensionError);
}
