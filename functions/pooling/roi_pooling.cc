// The region-of-interest functions: roi_pooling_2d, roi_max_pooling_2d,
// roi_average_pooling_2d, roi_max_align_2d, roi_average_align_2d. One FunctionNode runs the
// ROI kernels (core/ops/roi.h) in any mode; its gradient (RoiPoolingGrad) scatters gy back
// through the same bins and, like Chainer's (ROIPooling2DGrad raises NotImplementedError,
// the others are single-backprop Functions), cannot be differentiated again.

#include <string>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/roi.h"
#include "functions/pooling.h"

namespace rensa::functions {
namespace {

class RoiPoolingGrad : public FunctionNode {
public:
    RoiPoolingGrad(ops::RoiParams params, std::string_view op, Array rois, Array roi_indices, Array indices,
                   const Shape& x_shape)
        : params_{params},
          op_{op},
          rois_{std::move(rois)},
          roi_indices_{std::move(roi_indices)},
          indices_{std::move(indices)},
          x_shape_{x_shape} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        return {ops::roi_pool_backward(gys[0], rois_, roi_indices_, indices_, x_shape_, params_, op_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        RENSA_THROW(NotImplementedError, op_, ": double backprop is not supported (as in Chainer)");
    }
    std::string label() const override { return "RoiPoolingGrad"; }

private:
    ops::RoiParams params_;
    std::string_view op_;
    Array rois_, roi_indices_, indices_;
    Shape x_shape_;
};

// Inputs (x, rois) for roi_pooling_2d, (x, rois, roi_indices) otherwise.
class RoiPooling : public FunctionNode {
public:
    RoiPooling(ops::RoiParams params, std::string_view op) : params_{params}, op_{op} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Array none;
        ops::RoiPoolResult r = ops::roi_pool(in[0], in[1], in.size() > 2 ? in[2] : none, params_, op_);
        rois_ = in[1];
        roi_indices_ = std::move(r.roi_indices);
        indices_ = std::move(r.indices);
        return {std::move(r.y)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        auto grad = std::make_shared<RoiPoolingGrad>(params_, op_, rois_, roi_indices_, indices_, input_shape(0));
        std::vector<Variable> gxs{grad->apply({gys[0]})[0]};
        gxs.resize(inputs().size());  // no gradient for rois and roi_indices
        return gxs;
    }
    std::string label() const override { return "RoiPooling"; }

private:
    ops::RoiParams params_;
    std::string_view op_;
    Array rois_, roi_indices_, indices_;
};

Variable run(const ops::RoiParams& params, std::string_view op, const std::vector<Variable>& inputs) {
    expect_defined(inputs[0], op, "x");
    expect_defined(inputs[1], op, "rois");
    if (inputs.size() > 2) expect_defined(inputs[2], op, "roi_indices");
    return std::make_shared<RoiPooling>(params, op)->apply(inputs)[0];
}

ops::RoiParams params_of(RoiMode mode, const PoolingSize& outsize, double spatial_scale, std::string_view op) {
    const Shape out = outsize.expand(2, op, "outsize");
    return {.mode = mode, .out_h = out[0], .out_w = out[1], .spatial_scale = spatial_scale};
}

ops::RoiParams align_params(RoiMode mode, const PoolingSize& outsize, double spatial_scale,
                            const RoiSamplingRatio& ratio, std::string_view op) {
    ops::RoiParams p = params_of(mode, outsize, spatial_scale, op);
    for (const std::optional<int64_t>& s : ratio) {
        RENSA_CHECK(!s || *s >= 1, ValueError, op, ": Expect: sampling_ratio >= 1 or None, Actual: ", *s);
    }
    p.sampling_h = ratio[0].value_or(0);
    p.sampling_w = ratio[1].value_or(0);
    return p;
}

}  // namespace

Variable roi_pooling_2d(const Variable& x, const Variable& rois, int64_t outh, int64_t outw, double spatial_scale) {
    const ops::RoiParams p{.mode = RoiMode::kLegacyMax, .out_h = outh, .out_w = outw, .spatial_scale = spatial_scale};
    return run(p, "roi_pooling_2d", {x, rois});
}

Variable roi_max_pooling_2d(const Variable& x, const Variable& rois, const Variable& roi_indices, PoolingSize outsize,
                            double spatial_scale) {
    constexpr std::string_view op = "roi_max_pooling_2d";
    return run(params_of(RoiMode::kMax, outsize, spatial_scale, op), op, {x, rois, roi_indices});
}

Variable roi_average_pooling_2d(const Variable& x, const Variable& rois, const Variable& roi_indices,
                                PoolingSize outsize, double spatial_scale) {
    constexpr std::string_view op = "roi_average_pooling_2d";
    return run(params_of(RoiMode::kAverage, outsize, spatial_scale, op), op, {x, rois, roi_indices});
}

Variable roi_max_align_2d(const Variable& x, const Variable& rois, const Variable& roi_indices, PoolingSize outsize,
                          double spatial_scale, RoiSamplingRatio sampling_ratio) {
    constexpr std::string_view op = "roi_max_align_2d";
    return run(align_params(RoiMode::kMaxAlign, outsize, spatial_scale, sampling_ratio, op), op,
               {x, rois, roi_indices});
}

Variable roi_average_align_2d(const Variable& x, const Variable& rois, const Variable& roi_indices, PoolingSize outsize,
                              double spatial_scale, RoiSamplingRatio sampling_ratio) {
    constexpr std::string_view op = "roi_average_align_2d";
    return run(align_params(RoiMode::kAverageAlign, outsize, spatial_scale, sampling_ratio, op), op,
               {x, rois, roi_indices});
}

}  // namespace rensa::functions
