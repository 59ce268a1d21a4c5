// The oneDNN convolution path directly (core/native/conv_dnnl.h): the bias gradient that the
// backward-weights primitive computes (diff_bias) against the separate reduction the
// convolution functions use today (ops::sum of gy over all but axis 1), and the weight
// gradient with and without it, in float32 and bfloat16 (Note [oneDNN bfloat16]).

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/native/conv_dnnl.h"
#include "core/ops/convolution.h"
#include "core/ops/creation.h"
#include "core/ops/reduction.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct BiasCase {
    const char* name;
    Shape x, w, stride, pad, dilate;
    int64_t groups = 1;
};

const BiasCase kCases[] = {
    {"2d", {4, 16, 14, 14}, {32, 16, 5, 5}, {1, 1}, {2, 2}, {1, 1}},
    {"2d one input channel", {8, 1, 28, 28}, {32, 1, 5, 5}, {1, 1}, {2, 2}, {1, 1}},
    {"2d groups stride dilate", {2, 32, 13, 13}, {32, 16, 3, 3}, {2, 2}, {1, 1}, {2, 2}, 2},
    {"1d", {4, 16, 64}, {32, 16, 5}, {2}, {2}, {1}},
    {"3d", {1, 16, 4, 4, 4}, {16, 16, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
};

Array uniform(const Shape& shape, uint64_t seed, Dtype dtype) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    for (double& x : v) x = dist(rng);
    return make_array(v, shape, dtype);
}

Axes all_but_channels(int ndim) {
    Axes axes{0};
    for (int i = 2; i < ndim; ++i) axes.push_back(i);
    return axes;
}

void check_case(const BiasCase& c, Dtype dtype) {
    INFO(c.name << " " << dtype_name(dtype));
    const ops::ConvolutionParams p{.stride = c.stride, .pad = c.pad, .dilate = c.dilate, .groups = c.groups};
    Shape ys{c.x[0], c.w[0]};
    for (int i = 0; i + 2 < c.x.size(); ++i) {
        ys.push_back(ops::conv_outsize(c.x[i + 2], c.w[i + 2], c.stride[i], c.pad[i], false, c.dilate[i]));
    }
    const Array x = uniform(c.x, 1, dtype), gy = uniform(ys, 2, dtype);
    const WindowGeometry g = WindowGeometry::convolution(c.x, c.w, ys, c.stride, c.pad, c.dilate, c.groups);
    const auto precision =
        dtype == Dtype::kBFloat16 ? native::DnnlPrecision::kBFloat16 : native::DnnlPrecision::kFloat32;
    const Array gw = Array::empty(c.w, Dtype::kFloat32), gb = Array::empty({c.w[0]}, Dtype::kFloat32);
    const Array gw_alone = Array::empty(c.w, Dtype::kFloat32);
    const bool ran = native::dnnl_convolution_backward_filter(g, precision, x.raw_data(), gy.raw_data(),
                                                              static_cast<float*>(gw.raw_data()),
                                                              static_cast<float*>(gb.raw_data()));
    if (!ran) {
        WARN("oneDNN is not built in or refused " << c.name << ": nothing to compare");
        return;
    }
    REQUIRE(native::dnnl_convolution_backward_filter(g, precision, x.raw_data(), gy.raw_data(),
                                                     static_cast<float*>(gw_alone.raw_data())));
    // Both summed in float32 (gy's bfloat16 values are exact in float32): order differences only.
    const Array gy32 = gy.astype(Dtype::kFloat32);
    check_allclose(gb, ops::sum(gy32, all_but_channels(gy.ndim())), {1e-4, 1e-5});
    check_allclose(gw, gw_alone, {1e-5, 1e-6});
    check_allclose(
        gw, ops::convolution_backward_filter(x.astype(Dtype::kFloat32), gy32, Shape(c.w.begin() + 2, c.w.end()), p),
        {1e-3, 1e-5});
}

}  // namespace

TEST_CASE("oneDNN's diff_bias matches the separate bias-gradient reduction", "[core][native][convolution]") {
    for (const BiasCase& c : kCases) {
        check_case(c, Dtype::kFloat32);
        check_case(c, Dtype::kBFloat16);
    }
}
