// cuDNN convolution, data gradient and filter gradient against the native backend:
// 1-d, 2-d and 3-d, groups (depthwise too), stride, pad and dilation, with and without
// bias, every float dtype, contiguous and non-contiguous operands, cover_all.

#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/ops/convolution.h"
#include "cuda/conv_direct.h"
#include "cuda/handles.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

struct ConvCase {
    Shape x, w;
    ops::ConvolutionParams params;
};

const std::vector<ConvCase> kCases = {
    {{2, 3, 11}, {4, 3, 3}, {.stride = {2}, .pad = {1}, .dilate = {1}}},
    {{3, 2, 16}, {2, 1, 5}, {.stride = {1}, .pad = {2}, .dilate = {2}, .groups = 2}},
    {{2, 4, 9, 7}, {6, 2, 3, 2}, {.stride = {1, 2}, .pad = {1, 0}, .dilate = {2, 1}, .groups = 2}},
    {{1, 3, 5, 5}, {5, 3, 1, 1}, {.stride = {1, 1}, .pad = {0, 0}, .dilate = {1, 1}}},
    {{2, 4, 8, 8}, {4, 1, 3, 3}, {.stride = {1, 1}, .pad = {1, 1}, .dilate = {1, 1}, .groups = 4}},
    {{3, 5, 13, 10}, {7, 5, 3, 3}, {.stride = {2, 3}, .pad = {1, 2}, .dilate = {1, 1}}},
    {{1, 2, 5, 6, 4}, {3, 2, 2, 3, 2}, {.stride = {1, 2, 1}, .pad = {1, 1, 0}, .dilate = {1, 1, 2}}},
    // cover_all: one more output than cuDNN's size (the direct kernels run them).
    {{2, 2, 5, 6}, {3, 2, 2, 3}, {.stride = {2, 2}, .pad = {0, 1}, .dilate = {1, 1}, .cover_all = true}},
    {{2, 3, 10}, {2, 3, 3}, {.stride = {3}, .pad = {0}, .dilate = {1}, .cover_all = true}},
};

// The spatial part of a shape (what the gradient ops take as sizes).
Shape spatial(const Shape& shape) { return Shape(shape.begin() + 2, shape.end()); }

Shape output_shape(const ConvCase& c) {
    Shape y{c.x[0], c.w[0]};
    for (int i = 0; i + 2 < c.x.size(); ++i) {
        y.push_back(ops::conv_outsize(c.x[i + 2], c.w[i + 2], c.params.stride[i], c.params.pad[i], c.params.cover_all,
                                      c.params.dilate[i]));
    }
    return y;
}

// Forward with and without bias, data gradient and filter gradient of one case.
void check_case(const ConvCase& c, Dtype dtype, Layout layout) {
    INFO("dtype " << dtype_name(dtype) << ", layout " << layout_name(layout) << ", x " << c.x << ", w " << c.w
                  << ", groups " << c.params.groups);
    const ops::ConvolutionParams params = c.params;
    const Array x = random_array(c.x, dtype, 1), w = random_array(c.w, dtype, 2);
    const Array b = random_array({c.w[0]}, dtype, 3), gy = random_array(output_shape(c), dtype, 4);
    const Shape x_size = spatial(c.x), k_size = spatial(c.w);
    check_matches_native(
        [params](const std::vector<Array>& in) {
            return std::vector<Array>{ops::convolution(in[0], in[1], Array(), params)};
        },
        {x, w}, layout, product_tolerance(dtype));
    check_matches_native(
        [params](const std::vector<Array>& in) {
            return std::vector<Array>{ops::convolution(in[0], in[1], in[2], params)};
        },
        {x, w, b}, layout, product_tolerance(dtype));
    check_matches_native(
        [params, x_size](const std::vector<Array>& in) {
            return std::vector<Array>{ops::convolution_backward_data(in[0], in[1], x_size, params)};
        },
        {gy, w}, layout, product_tolerance(dtype));
    check_matches_native(
        [params, k_size](const std::vector<Array>& in) {
            return std::vector<Array>{ops::convolution_backward_filter(in[0], in[1], k_size, params)};
        },
        {x, gy}, layout, product_tolerance(dtype));
}

TEST_CASE("cuda: convolution and its gradients match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (Dtype dtype : kCudaFloatDtypes) {
        for (Layout layout : kAllLayouts) {
            for (const ConvCase& c : kCases) check_case(c, dtype, layout);
        }
    }
}

// Runs the direct kernels (the fallback when cuDNN has no algorithm) for the scope's life.
struct ForceDirectConvolution {
    ForceDirectConvolution() { cuda::set_force_direct_convolution(true); }
    ~ForceDirectConvolution() { cuda::set_force_direct_convolution(false); }
    ForceDirectConvolution(const ForceDirectConvolution&) = delete;
    ForceDirectConvolution& operator=(const ForceDirectConvolution&) = delete;
};

TEST_CASE("cuda: direct convolution kernels match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const ForceDirectConvolution force;
    for (Dtype dtype : kCudaFloatDtypes) {
        for (Layout layout : {Layout::kContiguous, Layout::kTransposed}) {
            for (const ConvCase& c : kCases) check_case(c, dtype, layout);
        }
    }
}

TEST_CASE("cuda: convolution with an empty batch matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const ops::ConvolutionParams params{.stride = {1, 1}, .pad = {1, 1}, .dilate = {1, 1}};
    const Array x = random_array({0, 3, 5, 5}, Dtype::kFloat32, 8), w = random_array({4, 3, 3, 3}, Dtype::kFloat32, 9);
    const Array b = random_array({4}, Dtype::kFloat32, 10), gy = random_array({0, 4, 5, 5}, Dtype::kFloat32, 11);
    check_matches_native(
        [params](const std::vector<Array>& in) {
            return std::vector<Array>{ops::convolution(in[0], in[1], in[2], params),
                                      ops::convolution_backward_data(in[3], in[1], {5, 5}, params),
                                      ops::convolution_backward_filter(in[0], in[3], {3, 3}, params)};
        },
        {x, w, b, gy});
}

TEST_CASE("cuda: convolution through the algorithm cache gives the same results twice", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    // The second call takes the cached algorithm; TF32 off keeps float32 exact to 1e-4.
    REQUIRE_FALSE(cuda::allow_tf32());
    const ConvCase& c = kCases[5];
    const Array x = random_array(c.x, Dtype::kFloat32, 12), w = random_array(c.w, Dtype::kFloat32, 13);
    for (int run = 0; run < 2; ++run) {
        check_matches_native(
            [&c](const std::vector<Array>& in) {
                return std::vector<Array>{ops::convolution(in[0], in[1], Array(), c.params)};
            },
            {x, w}, Layout::kContiguous, product_tolerance(Dtype::kFloat32));
    }
}

// Collects what is written to std::cerr for the scope's life.
class CerrCapture {
public:
    CerrCapture() : previous_{std::cerr.rdbuf(captured_.rdbuf())} {}
    ~CerrCapture() { std::cerr.rdbuf(previous_); }
    CerrCapture(const CerrCapture&) = delete;
    CerrCapture& operator=(const CerrCapture&) = delete;
    std::string text() const { return captured_.str(); }

private:
    std::ostringstream captured_;
    std::streambuf* previous_;
};

// Forward, data gradient and filter gradient of `c` in float32 on cuda:0.
void run_all_directions(const ConvCase& c) {
    const Array x = to_cuda(random_array(c.x, Dtype::kFloat32, 14)),
                w = to_cuda(random_array(c.w, Dtype::kFloat32, 15));
    const Array gy = to_cuda(random_array(output_shape(c), Dtype::kFloat32, 16));
    (void)ops::convolution(x, w, Array(), c.params).to_device(Device::native());
    (void)ops::convolution_backward_data(gy, w, spatial(c.x), c.params).to_device(Device::native());
    (void)ops::convolution_backward_filter(x, gy, spatial(c.w), c.params).to_device(Device::native());
}

TEST_CASE("cuda: cuDNN problems, cover_all and forced direct kernels print no fallback line", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    // Shapes no other test uses, so no earlier call has reported them (one line per problem).
    const ConvCase plain{{2, 3, 12, 12}, {8, 3, 3, 3}, {.stride = {1, 1}, .pad = {1, 1}, .dilate = {1, 1}}};
    const ConvCase cover_all{
        {2, 3, 11, 12}, {8, 3, 3, 3}, {.stride = {2, 2}, .pad = {0, 0}, .dilate = {1, 1}, .cover_all = true}};
    const CerrCapture capture;
    run_all_directions(plain);      // float32 cuDNN has an algorithm for every direction
    run_all_directions(cover_all);  // expected direct route (cuda/conv_shape.h)
    {
        const ForceDirectConvolution force;
        run_all_directions(plain);
    }
    CHECK(capture.text().find("has no cuDNN algorithm") == std::string::npos);
}

}  // namespace
}  // namespace rensa::testing
