// max_pooling_2d, max_pooling_nd and max_pooling_2d_with_indexes. The gradient routes
// through the argmax indices the forward keeps (MaxPoolingGrad: a scatter-add); the
// gradient of that is the gather at the same indices (MaxPoolingGather), and back again,
// so any order of differentiation works.

#include "autograd/function_node.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/pooling.h"
#include "functions/pooling.h"
#include "functions/pooling/detail.h"

namespace rensa::functions {
namespace {

class MaxPooling : public FunctionNode {
public:
    MaxPooling(const ops::PoolParams& params, std::string_view op) : params_{params}, op_{op} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        ops::MaxPoolResult r = ops::max_pool(xs[0], params_, true, op_);
        indices_ = std::move(r.indices);
        return {std::move(r.y)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {detail::max_pool_scatter(gys[0], indices_, input_shape(0), params_)};
    }
    std::string label() const override { return "MaxPooling"; }
    Attributes attributes() const override { return detail::pooling_attributes(params_); }
    const Array& indices() const { return indices_; }

private:
    ops::PoolParams params_;
    std::string_view op_;
    Array indices_;  // flat argmax in each input plane (ops::max_pool)
};

// gx = gy scattered through the argmax indices; linear in gy.
class MaxPoolingGrad : public FunctionNode {
public:
    MaxPoolingGrad(Array indices, const Shape& x_shape, const ops::PoolParams& params)
        : indices_{std::move(indices)}, x_shape_{x_shape}, params_{params} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        return {ops::max_pool_backward(gys[0], indices_, x_shape_, params_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggxs) override {
        return {detail::max_pool_gather(ggxs[0], indices_, params_)};
    }
    std::string label() const override { return "MaxPoolingGrad"; }

private:
    Array indices_;
    Shape x_shape_;
    ops::PoolParams params_;
};

// y = x gathered at the argmax indices (the transpose of MaxPoolingGrad).
class MaxPoolingGather : public FunctionNode {
public:
    MaxPoolingGather(Array indices, const ops::PoolParams& params) : indices_{std::move(indices)}, params_{params} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        return {ops::max_pool_gather(xs[0], indices_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {detail::max_pool_scatter(gys[0], indices_, input_shape(0), params_)};
    }
    std::string label() const override { return "MaxPoolingGather"; }

private:
    Array indices_;
    ops::PoolParams params_;
};

std::pair<Variable, Array> run_max_pooling(const Variable& x, int spatial, const PoolingSize& ksize,
                                           const MaxPoolingOptions& o, std::string_view op) {
    auto node =
        std::make_shared<MaxPooling>(detail::pool_params(x, spatial, ksize, o.stride, o.pad, o.cover_all, op), op);
    Variable y = node->apply({x})[0];
    return {std::move(y), node->indices()};
}

// Plane indices of a 2-D max pooling -> Chainer's window-relative ky * kw + kx (0 for an
// empty window, as Chainer's argmax over an all -inf window).
Array to_window_indexes(const Array& plane, int64_t width, const ops::PoolParams& p) {
    const Device dev = plane.device();
    const int64_t oh = plane.shape()[2], ow = plane.shape()[3];
    const Array y0 = ops::subtract(ops::multiply(ops::arange(oh, Dtype::kInt64, dev), p.stride[0]), p.pad[0]);
    const Array x0 = ops::subtract(ops::multiply(ops::arange(ow, Dtype::kInt64, dev), p.stride[1]), p.pad[1]);
    const Array ky = ops::subtract(ops::floor_divide(plane, width), y0.reshape({oh, 1}));
    const Array kx = ops::subtract(ops::mod(plane, width), x0);
    return ops::where(ops::less(plane, 0), Scalar(int64_t{0}), ops::add(ops::multiply(ky, p.ksize[1]), kx));
}

}  // namespace

namespace detail {

Variable max_pool_scatter(const Variable& gy, const Array& indices, const Shape& x_shape,
                          const ops::PoolParams& params) {
    return std::make_shared<MaxPoolingGrad>(indices, x_shape, params)->apply({gy})[0];
}

Variable max_pool_gather(const Variable& gx, const Array& indices, const ops::PoolParams& params) {
    return std::make_shared<MaxPoolingGather>(indices, params)->apply({gx})[0];
}

}  // namespace detail

Variable max_pooling_2d(const Variable& x, PoolingSize ksize, const MaxPoolingOptions& options) {
    return run_max_pooling(x, 2, ksize, options, "max_pooling_2d").first;
}

std::pair<Variable, Array> max_pooling_2d_with_indexes(const Variable& x, PoolingSize ksize,
                                                       const MaxPoolingOptions& options) {
    auto [y, plane] = run_max_pooling(x, 2, ksize, options, "max_pooling_2d_with_indexes");
    const auto params =
        detail::pool_params(x, 2, ksize, options.stride, options.pad, options.cover_all, "max_pooling_2d_with_indexes");
    return {std::move(y), to_window_indexes(plane, x.shape()[3], params)};
}

Variable max_pooling_nd(const Variable& x, PoolingSize ksize, const MaxPoolingOptions& options) {
    RENSA_CHECK(x.ndim() >= 3, DimensionError, "max_pooling_nd: Expect: x.ndim >= 3, Actual: ", x.ndim());
    return run_max_pooling(x, x.ndim() - 2, ksize, options, "max_pooling_nd").first;
}

}  // namespace rensa::functions
