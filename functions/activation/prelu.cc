#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

using activation_detail::constant;

// W's shape padded to x's rank: (1, *W.shape, 1, ...).
Shape expanded_shape(const Shape& w_shape, int ndim) {
    Shape shape{1};
    for (const int64_t d : w_shape) shape.push_back(d);
    while (shape.size() < ndim) shape.push_back(1);
    return shape;
}

// y = x where x >= 0, W * x elsewhere. gx = gy * (pos + neg * W), gW = sum(gy * x * neg)
// over the broadcast axes, both built from Variables so double backprop follows.
class PReLU : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        const Array& x = xs[0];
        const Array w = xs[1].reshape(expanded_shape(xs[1].shape(), x.ndim()));
        return {ops::where(ops::greater_equal(x, 0), x, ops::multiply(x, w))};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0), w = retained_input(1);
        const Shape w_shape = expanded_shape(w.shape(), x.ndim());
        const Array pos = ops::greater_equal(x.array(), 0).astype(x.dtype());
        const Variable neg = constant(ops::subtract(1, pos));
        const Variable wb = broadcast_to(reshape(w, w_shape), x.shape());
        const Variable gx = gys[0] * (constant(pos) + neg * wb);
        const Variable gw = reshape(sum_to(gys[0] * x * neg, w_shape), w.shape());
        return {gx, gw};
    }
    std::string label() const override { return "PReLU"; }
};

}  // namespace

Variable prelu(const Variable& x, const Variable& W) {  // NOLINT(readability-identifier-naming)
    expect_float(x, "prelu", "x");
    expect_float(W, "prelu", "W");
    expect_same_dtype(x, W, "prelu", "x", "W");
    RENSA_CHECK(x.ndim() >= W.ndim() + 1, DimensionError, "prelu: Expect: x.ndim >= W.ndim + 1, Actual: ", x.ndim(),
                " < ", W.ndim() + 1);
    for (int d = 0; d < W.ndim(); ++d) {
        RENSA_CHECK(x.shape()[d + 1] == W.shape()[d], DimensionError,
                    "prelu: Expect: x.shape[1:1 + W.ndim] == W.shape, Actual: x.shape ", x.shape(), ", W.shape ",
                    W.shape());
    }
    return std::make_shared<PReLU>()->apply({x, W})[0];
}

}  // namespace rensa::functions
