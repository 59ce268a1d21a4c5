// average_pooling_2d and average_pooling_nd. Average pooling is linear: its backward
// (AveragePoolingGrad, spreading gy over each window) has average pooling as its own
// backward, so any order of differentiation works.

#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/pooling.h"
#include "functions/pooling.h"
#include "functions/pooling/detail.h"

namespace rensa::functions {
namespace {

class AveragePooling : public FunctionNode {
public:
    AveragePooling(const ops::PoolParams& params, bool exclude_pad) : params_{params}, exclude_pad_{exclude_pad} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        return {ops::average_pool(xs[0], params_, exclude_pad_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {detail::average_pool_grad(gys[0], input_shape(0), params_, exclude_pad_)};
    }
    std::string label() const override { return "AveragePooling"; }
    Attributes attributes() const override {
        Attributes a = detail::pooling_attributes(params_);
        a.emplace_back("exclude_pad", exclude_pad_);  // Chainer's pad_value=None
        return a;
    }

private:
    ops::PoolParams params_;
    bool exclude_pad_;
};

class AveragePoolingGrad : public FunctionNode {
public:
    AveragePoolingGrad(const Shape& x_shape, const ops::PoolParams& params, bool exclude_pad)
        : x_shape_{x_shape}, params_{params}, exclude_pad_{exclude_pad} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        return {ops::average_pool_backward(gys[0], x_shape_, params_, exclude_pad_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggxs) override {
        return {detail::average_pool(ggxs[0], params_, exclude_pad_)};
    }
    std::string label() const override { return "AveragePoolingGrad"; }

private:
    Shape x_shape_;
    ops::PoolParams params_;
    bool exclude_pad_;
};

Variable run_average_pooling(const Variable& x, int spatial, const PoolingSize& ksize, const AveragePoolingOptions& o,
                             std::string_view op) {
    RENSA_CHECK(!o.pad_value.has_value() || *o.pad_value == 0.0, ValueError, op,
                ": pad_value must be either 0 or None, not ", *o.pad_value);
    const ops::PoolParams params = detail::pool_params(x, spatial, ksize, o.stride, o.pad, false, op);
    return detail::average_pool(x, params, !o.pad_value.has_value());
}

}  // namespace

namespace detail {

Variable average_pool(const Variable& x, const ops::PoolParams& params, bool exclude_pad) {
    return std::make_shared<AveragePooling>(params, exclude_pad)->apply({x})[0];
}

Variable average_pool_grad(const Variable& gy, const Shape& x_shape, const ops::PoolParams& params, bool exclude_pad) {
    return std::make_shared<AveragePoolingGrad>(x_shape, params, exclude_pad)->apply({gy})[0];
}

}  // namespace detail

Variable average_pooling_2d(const Variable& x, PoolingSize ksize, const AveragePoolingOptions& options) {
    return run_average_pooling(x, 2, ksize, options, "average_pooling_2d");
}

Variable average_pooling_nd(const Variable& x, PoolingSize ksize, const AveragePoolingOptions& options) {
    RENSA_CHECK(x.ndim() >= 3, DimensionError, "average_pooling_nd: Expect: x.ndim >= 3, Actual: ", x.ndim());
    return run_average_pooling(x, x.ndim() - 2, ksize, options, "average_pooling_nd");
}

}  // namespace rensa::functions
