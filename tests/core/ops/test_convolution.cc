// ops::convolution, convolution_backward_data and convolution_backward_filter against
// naive float64 loops, over 1-D to 3-D, strides, pads, dilations, groups, cover_all,
// dtypes and layouts; output sizes; errors.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/ops/convolution.h"
#include "core/ops/creation.h"
#include "tests/functions/connection/convolution_reference.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct ConvCase {
    const char* name;
    Shape x, w, stride, pad, dilate;
    int64_t groups = 1;
    bool cover_all = false;
};

const ConvCase kCases2d[] = {
    {"2d", {2, 3, 5, 6}, {4, 3, 3, 2}, {1, 1}, {0, 0}, {1, 1}},
    {"2d stride pad", {2, 2, 7, 6}, {3, 2, 3, 3}, {2, 1}, {1, 2}, {1, 1}},
    {"2d dilate", {1, 2, 7, 7}, {2, 2, 3, 3}, {1, 1}, {1, 0}, {2, 2}},
    {"2d groups", {2, 4, 5, 5}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2},
    {"2d depthwise", {2, 3, 5, 4}, {6, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 3},
};
const ConvCase kCases2dMore[] = {
    {"2d cover_all", {1, 2, 6, 7}, {2, 2, 3, 3}, {2, 2}, {0, 1}, {1, 1}, 1, true},
    {"2d one channel", {3, 1, 6, 6}, {4, 1, 3, 3}, {1, 1}, {0, 0}, {1, 1}},
};
const ConvCase kCasesNd[] = {
    {"1d", {2, 3, 9}, {2, 3, 3}, {2}, {1}, {1}},
    {"1d dilate groups", {1, 6, 10}, {3, 2, 3}, {1}, {2}, {2}, 3},
    {"3d", {1, 2, 4, 5, 3}, {3, 2, 2, 3, 2}, {1, 2, 1}, {1, 0, 1}, {1, 1, 1}},
    {"3d cover_all", {2, 1, 5, 4, 4}, {2, 1, 2, 2, 3}, {2, 2, 2}, {0, 1, 0}, {1, 1, 1}, 1, true},
};

ops::ConvolutionParams params(const ConvCase& c) {
    return {.stride = c.stride, .pad = c.pad, .dilate = c.dilate, .groups = c.groups, .cover_all = c.cover_all};
}
ConvReferenceParams ref_params(const ConvCase& c) {
    return {.stride = c.stride, .pad = c.pad, .dilate = c.dilate, .groups = c.groups};
}

Shape out_shape(const ConvCase& c) {
    Shape y{c.x[0], c.w[0]};
    for (int i = 0; i < c.x.size() - 2; ++i) {
        y.push_back(ops::conv_outsize(c.x[i + 2], c.w[i + 2], c.stride[i], c.pad[i], c.cover_all, c.dilate[i]));
    }
    return y;
}

Shape spatial(const Shape& s) { return Shape(s.begin() + 2, s.end()); }

template <class Cases>
void check_against_reference(const Cases& cases) {
    for (const ConvCase& c : cases) {
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            for (const Layout layout : {Layout::kContiguous, Layout::kStrided, Layout::kTransposed}) {
                INFO(c.name << " " << dtype_name(dtype) << " " << layout_name(layout));
                const Shape ys = out_shape(c);
                const Array x = make_array(sample(dtype, shape_size(c.x), 1), c.x, dtype, layout);
                const Array w = make_array(sample(dtype, shape_size(c.w), 2), c.w, dtype, layout);
                const Array b = make_array(sample(dtype, c.w[0], 3), {c.w[0]}, dtype, layout);
                const Array gy = make_array(sample(dtype, shape_size(ys), 4), ys, dtype, layout);
                const auto xd = to_doubles(x), wd = to_doubles(w), gyd = to_doubles(gy);
                const Array y = ops::convolution(x, w, b, params(c));
                check_allclose(y, conv_reference(xd, c.x, wd, c.w, to_doubles(b), ys, ref_params(c)), ys,
                               tolerance(dtype));
                const Array gx = ops::convolution_backward_data(gy, w, spatial(c.x), params(c));
                check_allclose(gx, conv_backward_data_reference(gyd, ys, wd, c.w, c.x, ref_params(c)), c.x,
                               tolerance(dtype));
                const Array gw = ops::convolution_backward_filter(x, gy, spatial(c.w), params(c));
                check_allclose(gw, conv_backward_filter_reference(xd, c.x, gyd, ys, c.w, ref_params(c)), c.w,
                               tolerance(dtype));
            }
        }
    }
}

}  // namespace

TEST_CASE("convolution ops match naive loops: 2-D", "[core][ops][convolution]") { check_against_reference(kCases2d); }

TEST_CASE("convolution ops match naive loops: 2-D cover_all, one channel", "[core][ops][convolution]") {
    check_against_reference(kCases2dMore);
}

TEST_CASE("convolution ops match naive loops: 1-D and 3-D", "[core][ops][convolution]") {
    check_against_reference(kCasesNd);
}

namespace {

// Problems large enough for the oneDNN path (float32 and float16), plain and blocked layouts.
const ConvCase kDnnlCases[] = {
    {"dnnl 2d", {2, 8, 12, 12}, {16, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"dnnl 2d one input channel", {2, 1, 20, 20}, {32, 1, 5, 5}, {1, 1}, {0, 0}, {1, 1}},
    {"dnnl 2d groups stride dilate cover_all", {2, 32, 13, 13}, {32, 16, 3, 3}, {2, 2}, {1, 1}, {2, 2}, 2, true},
    {"dnnl 1d", {4, 16, 64}, {32, 16, 5}, {2}, {2}, {1}},
    {"dnnl 3d", {1, 16, 4, 4, 4}, {16, 16, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
};

std::vector<double> uniform_values(int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = dist(rng);
    return v;
}

void check_dnnl_case(const ConvCase& c) {
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat16}) {
        const Layout layout = dtype == Dtype::kFloat32 ? Layout::kContiguous : Layout::kStrided;
        INFO(c.name << " " << dtype_name(dtype));
        const Shape ys = out_shape(c);
        const Array x = make_array(uniform_values(shape_size(c.x), 1), c.x, dtype, layout);
        const Array w = make_array(uniform_values(shape_size(c.w), 2), c.w, dtype, layout);
        const Array b = make_array(uniform_values(c.w[0], 3), {c.w[0]}, dtype);
        const Array gy = make_array(uniform_values(shape_size(ys), 4), ys, dtype, layout);
        const auto xd = to_doubles(x), wd = to_doubles(w), gyd = to_doubles(gy);
        const Tolerance tol = dtype == Dtype::kFloat32 ? Tolerance{1e-4, 1e-4} : tolerance(dtype);
        check_allclose(ops::convolution(x, w, b, params(c)),
                       conv_reference(xd, c.x, wd, c.w, to_doubles(b), ys, ref_params(c)), ys, tol);
        check_allclose(ops::convolution_backward_data(gy, w, spatial(c.x), params(c)),
                       conv_backward_data_reference(gyd, ys, wd, c.w, c.x, ref_params(c)), c.x, tol);
        check_allclose(ops::convolution_backward_filter(x, gy, spatial(c.w), params(c)),
                       conv_backward_filter_reference(xd, c.x, gyd, ys, c.w, ref_params(c)), c.w, tol);
    }
}

}  // namespace

TEST_CASE("convolution ops: oneDNN-sized 2-D", "[core][ops][convolution]") { check_dnnl_case(kDnnlCases[0]); }

TEST_CASE("convolution ops: oneDNN-sized 2-D, one input channel", "[core][ops][convolution]") {
    check_dnnl_case(kDnnlCases[1]);
}

TEST_CASE("convolution ops: oneDNN-sized grouped, strided, dilated, cover_all", "[core][ops][convolution]") {
    check_dnnl_case(kDnnlCases[2]);
}

TEST_CASE("convolution ops: oneDNN-sized 1-D", "[core][ops][convolution]") { check_dnnl_case(kDnnlCases[3]); }

TEST_CASE("convolution ops: oneDNN-sized 3-D", "[core][ops][convolution]") { check_dnnl_case(kDnnlCases[4]); }

TEST_CASE("convolution ops: output sizes as Chainer", "[core][ops][convolution]") {
    CHECK(ops::conv_outsize(28, 5, 1, 0) == 24);
    CHECK(ops::conv_outsize(6, 3, 2, 0) == 2);
    CHECK(ops::conv_outsize(6, 3, 2, 0, true) == 3);
    CHECK(ops::conv_outsize(7, 3, 1, 1, false, 2) == 5);
    CHECK(ops::deconv_outsize(2, 3, 2, 0) == 5);
    CHECK(ops::deconv_outsize(3, 3, 2, 0, true) == 6);
    CHECK(ops::deconv_outsize(5, 3, 1, 1, false, 2) == 7);
}

TEST_CASE("convolution ops: size-0 batch and channels", "[core][ops][convolution]") {
    const ops::ConvolutionParams p{.stride = {1, 1}, .pad = {0, 0}, .dilate = {1, 1}};
    const Array y = ops::convolution(ops::zeros({0, 2, 4, 4}), ops::ones({3, 2, 3, 3}), Array(), p);
    CHECK(y.shape() == Shape{0, 3, 2, 2});
    const Array y2 = ops::convolution(ops::zeros({1, 0, 4, 4}), ops::ones({3, 0, 3, 3}), ops::ones({3}), p);
    CHECK(to_doubles(y2) == std::vector<double>(12, 1.0));
    const Array gw = ops::convolution_backward_filter(ops::zeros({0, 2, 4, 4}), ops::zeros({0, 3, 2, 2}), {3, 3}, p);
    CHECK(to_doubles(gw) == std::vector<double>(54, 0.0));
}

TEST_CASE("convolution ops: errors", "[core][ops][convolution]") {
    const ops::ConvolutionParams p{.stride = {1, 1}, .pad = {0, 0}, .dilate = {1, 1}};
    const Array x = ops::zeros({1, 4, 5, 5}), w = ops::zeros({6, 2, 3, 3});
    CHECK_THROWS_WITH(ops::convolution(x, w, Array(), p), Catch::Contains("x.shape[1] == W.shape[1] * groups"));
    CHECK_THROWS_AS(ops::convolution(x, ops::zeros({6, 4, 3, 3}), Array(),
                                     {.stride = {1, 1}, .pad = {0, 0}, .dilate = {1, 1}, .groups = 4}),
                    DimensionError);
    CHECK_THROWS_WITH(ops::convolution(x, ops::zeros({5, 2, 3, 3}), Array(),
                                       {.stride = {1, 1}, .pad = {0, 0}, .dilate = {1, 1}, .groups = 2}),
                      Catch::Contains("multiple of groups=2"));
    CHECK_THROWS_AS(ops::convolution(x, ops::zeros({6, 4, 7, 7}), Array(), p), DimensionError);
    CHECK_THROWS_AS(ops::convolution(x, ops::zeros({6, 4, 3, 3}, Dtype::kFloat64), Array(), p), DtypeError);
    CHECK_THROWS_AS(
        ops::convolution(ops::zeros({1, 4, 5, 5}, Dtype::kInt32), ops::zeros({6, 4, 3, 3}, Dtype::kInt32), Array(), p),
        DtypeError);
    CHECK_THROWS_AS(ops::convolution(x, ops::zeros({6, 4, 3, 3}), ops::zeros({5}), p), DimensionError);
    CHECK_THROWS_AS(
        ops::convolution(x, ops::zeros({6, 4, 3, 3}), Array(), {.stride = {0, 1}, .pad = {0, 0}, .dilate = {1, 1}}),
        ValueError);
    CHECK_THROWS_AS(ops::convolution(ops::zeros({4, 5}), ops::zeros({6, 4}), Array(), p), DimensionError);
    CHECK_THROWS_AS(ops::convolution_backward_data(ops::zeros({1, 6, 3, 3}), ops::zeros({6, 4, 3, 3}), {9, 9}, p),
                    DimensionError);
}
