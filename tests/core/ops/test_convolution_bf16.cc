// bfloat16 convolution (forward, backward data, backward filter) against float32 on the
// same bfloat16-rounded operands, over 1-D to 3-D, groups, stride, pad, dilate, cover_all,
// with and without bias. The problems are large enough for oneDNN's bfloat16 kernels (Note
// [oneDNN bfloat16]); one small problem takes the float32-temporary path.
//
// Tolerance: oneDNN accumulates in float32 like the float32 reference, so the two differ by
// the one rounding of the result to bfloat16 (at most 2^-8 relative: 8 significant bits)
// plus float32 summation order (about 1e-6 of the sum of |terms|, a few units here): rtol
// 2^-7 and atol 1e-3 leave a factor of two for the rounding and hundreds for the order.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/ops/convolution.h"
#include "core/ops/creation.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct Bf16Case {
    const char* name;
    Shape x, w, stride, pad, dilate;
    int64_t groups = 1;
    bool cover_all = false;
    bool bias = true;
};

// 0-4: 2-D; 5-8: 1-D, 3-D and a problem below oneDNN's size threshold; 9: depthwise.
const Bf16Case kCases[] = {
    {"2d", {2, 8, 12, 12}, {16, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"2d no bias", {2, 16, 12, 12}, {32, 16, 5, 5}, {1, 1}, {0, 0}, {1, 1}, 1, false, false},
    {"2d one input channel", {2, 1, 20, 20}, {32, 1, 5, 5}, {1, 1}, {0, 0}, {1, 1}},
    {"2d groups stride dilate cover_all", {2, 32, 13, 13}, {32, 16, 3, 3}, {2, 2}, {1, 1}, {2, 2}, 2, true},
    {"2d few output channels", {2, 32, 12, 12}, {4, 32, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"1d", {4, 16, 64}, {32, 16, 5}, {2}, {2}, {1}},
    {"3d", {1, 16, 4, 4, 4}, {16, 16, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d stride cover_all no bias", {2, 8, 6, 5, 7}, {16, 8, 2, 3, 2}, {2, 1, 2}, {0, 1, 1}, {1, 1, 1}, 1, true, false},
    {"small (float32 temporaries)", {1, 2, 5, 5}, {3, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"2d depthwise", {8, 32, 24, 24}, {32, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 32},
};

constexpr Tolerance kBf16Tolerance{1e-3, 1.0 / 128};

ops::ConvolutionParams params(const Bf16Case& c) {
    return {.stride = c.stride, .pad = c.pad, .dilate = c.dilate, .groups = c.groups, .cover_all = c.cover_all};
}

Shape out_shape(const Bf16Case& c) {
    Shape y{c.x[0], c.w[0]};
    for (int i = 0; i < c.x.size() - 2; ++i) {
        y.push_back(ops::conv_outsize(c.x[i + 2], c.w[i + 2], c.stride[i], c.pad[i], c.cover_all, c.dilate[i]));
    }
    return y;
}

Shape spatial(const Shape& s) { return Shape(s.begin() + 2, s.end()); }

// Uniform in [-1, 1), rounded to bfloat16 (make_array converts).
Array bf16_operand(const Shape& shape, uint64_t seed, Layout layout = Layout::kContiguous) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    for (double& x : v) x = dist(rng);
    return make_array(v, shape, Dtype::kBFloat16, layout);
}

Array f32(const Array& a) { return a.defined() ? a.astype(Dtype::kFloat32) : Array(); }

void check_case(const Bf16Case& c, Layout layout) {
    INFO(c.name << " " << layout_name(layout));
    const Shape ys = out_shape(c);
    const Array x = bf16_operand(c.x, 1, layout), w = bf16_operand(c.w, 2, layout), gy = bf16_operand(ys, 4, layout);
    const Array b = c.bias ? bf16_operand({c.w[0]}, 3) : Array();
    const Array y = ops::convolution(x, w, b, params(c));
    const Array gx = ops::convolution_backward_data(gy, w, spatial(c.x), params(c));
    const Array gw = ops::convolution_backward_filter(x, gy, spatial(c.w), params(c));
    CHECK(y.dtype() == Dtype::kBFloat16);
    CHECK(gx.dtype() == Dtype::kBFloat16);
    CHECK(gw.dtype() == Dtype::kBFloat16);
    check_allclose(y, ops::convolution(f32(x), f32(w), f32(b), params(c)), kBf16Tolerance);
    check_allclose(gx, ops::convolution_backward_data(f32(gy), f32(w), spatial(c.x), params(c)), kBf16Tolerance);
    check_allclose(gw, ops::convolution_backward_filter(f32(x), f32(gy), spatial(c.w), params(c)), kBf16Tolerance);
}

}  // namespace

TEST_CASE("bfloat16 convolution matches float32 on the rounded operands: 2-D", "[core][ops][convolution][bf16]") {
    for (int i = 0; i < 5; ++i) check_case(kCases[i], Layout::kContiguous);
}

TEST_CASE("bfloat16 convolution matches float32 on the rounded operands: 1-D, 3-D, small, depthwise",
          "[core][ops][convolution][bf16]") {
    for (int i = 5; i < 10; ++i) check_case(kCases[i], Layout::kContiguous);
}

TEST_CASE("bfloat16 convolution takes non-contiguous operands", "[core][ops][convolution][bf16]") {
    check_case(kCases[0], Layout::kStrided);
    check_case(kCases[5], Layout::kTransposed);
}

TEST_CASE("bfloat16 convolution rounds the float32 weight gradient once", "[core][ops][convolution][bf16]") {
    // gw sums n * out = 4608 products: rounded once from float32 it equals the rounded float32
    // reference except where the two summation orders straddle a rounding boundary (rare);
    // bfloat16 partial sums would move most entries.
    const Bf16Case c{"long sum", {8, 16, 24, 24}, {16, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
    const Array x = bf16_operand(c.x, 5), gy = bf16_operand(out_shape(c), 6);
    const auto gw = to_doubles(ops::convolution_backward_filter(x, gy, spatial(c.w), params(c)));
    const auto expected =
        to_doubles(ops::convolution_backward_filter(f32(x), f32(gy), spatial(c.w), params(c)).astype(Dtype::kBFloat16));
    size_t differing = 0;
    for (size_t i = 0; i < gw.size(); ++i) differing += gw[i] != expected[i] ? 1 : 0;
    INFO(differing << " of " << gw.size() << " entries differ from the rounded float32 gradient");
    CHECK(differing * 50 <= gw.size());
}
