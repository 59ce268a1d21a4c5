// convolution_2d, deconvolution_2d and depthwise_convolution_2d: the 2-D entry points
// of the N-D convolution nodes (convolution_nd.cc).

#include "autograd/function_node.h"
#include "core/error.h"
#include "functions/connection/convolution.h"
#include "functions/connection/detail.h"

namespace rensa::functions {
namespace {

// Depthwise W (m, c, kh, kw) -> grouped W (c * m, 1, kh, kw) and back; each is the
// other's backward, so both stay differentiable.
class DepthwiseWeight : public FunctionNode {
public:
    explicit DepthwiseWeight(bool inverse) : inverse_{inverse} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        const Shape& s = xs[0].shape();
        if (!inverse_) return {xs[0].swapaxes(0, 1).copy().reshape({s[0] * s[1], 1, s[2], s[3]})};
        return {xs[0].reshape({channels_, s[0] / channels_, s[2], s[3]}).swapaxes(0, 1).copy()};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Shape& s = input_shape(0);
        const auto node = std::make_shared<DepthwiseWeight>(!inverse_);
        node->channels_ = inverse_ ? 0 : s[1];
        return {node->apply({gys[0]})[0]};
    }
    std::string label() const override { return inverse_ ? "DepthwiseWeightGrad" : "DepthwiseWeight"; }

private:
    bool inverse_;
    int64_t channels_ = 0;  // c, for the inverse
};

}  // namespace

Variable convolution_2d(const Variable& x, const Variable& W, const Variable& b, const ConvolutionOptions& options) {
    return detail::convolution(x, W, b, options, 4, "convolution_2d");
}

Variable deconvolution_2d(const Variable& x, const Variable& W, const Variable& b,
                          const DeconvolutionOptions& options) {
    return detail::deconvolution(x, W, b, options, 4, "deconvolution_2d");
}

Variable depthwise_convolution_2d(const Variable& x, const Variable& W, const Variable& b,
                                  const DepthwiseConvolutionOptions& options) {
    const char* op = "depthwise_convolution_2d";
    detail::check_convolution_inputs(x, W, b, 4, op);
    RENSA_CHECK(x.shape()[1] == W.shape()[1], DimensionError, op,
                ": Expect: x.shape[1] == W.shape[1], Actual: ", x.shape()[1], " != ", W.shape()[1]);
    if (b.defined()) {
        RENSA_CHECK(b.shape()[0] == W.shape()[0] * W.shape()[1], DimensionError, op,
                    ": Expect: b.shape[0] == W.shape[0] * W.shape[1], Actual: ", b.shape()[0], " != ", W.shape()[0],
                    " * ", W.shape()[1]);
    }
    const Variable grouped = std::make_shared<DepthwiseWeight>(false)->apply({W})[0];
    return detail::convolution(
        x, grouped, b, {.stride = options.stride, .pad = options.pad, .groups = std::max<int64_t>(1, x.shape()[1])}, 4,
        op);
}

}  // namespace rensa::functions
