#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

using activation_detail::constant;

// x's shape with `axis` split into (groups, pool_size).
Shape pooled_shape(const Shape& shape, int axis, int64_t pool_size) {
    Shape out;
    for (int d = 0; d < shape.size(); ++d) {
        if (d == axis) {
            out.push_back(shape[d] / pool_size);
            out.push_back(pool_size);
        } else {
            out.push_back(shape[d]);
        }
    }
    return out;
}

// y = max over the pool axis of x reshaped to pooled_shape. The gradient goes to the
// first maximum of each group through a constant one-hot mask (linear in gy).
class Maxout : public FunctionNode {
public:
    Maxout(int axis, int64_t pool_size) : axis_{axis}, pool_size_{pool_size} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        const Array xr = xs[0].reshape(pooled_shape(xs[0].shape(), axis_, pool_size_));
        Shape iota_shape(xr.ndim(), 1);
        iota_shape[axis_ + 1] = pool_size_;
        const Array iota = ops::arange(pool_size_, Dtype::kInt64, xr.device()).reshape(iota_shape);
        mask_ = ops::equal(ops::argmax(xr, axis_ + 1, true), iota).astype(xr.dtype());
        return {ops::max(xr, Axes{axis_ + 1})};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        Shape g_shape = mask_.shape();
        g_shape[axis_ + 1] = 1;
        return {reshape(reshape(gys[0], g_shape) * constant(mask_), input_shape(0))};
    }
    std::string label() const override { return "Maxout"; }

private:
    int axis_;
    int64_t pool_size_;
    Array mask_;  // one-hot over the pool axis, x's dtype, pooled shape
};

}  // namespace

Variable maxout(const Variable& x, int64_t pool_size, int axis) {
    expect_float(x, "maxout", "x");
    const int ax = normalize_axis(axis, x.ndim(), "maxout");
    RENSA_CHECK(pool_size > 0, ValueError, "maxout: pool_size must be a positive integer, but it is ", pool_size);
    RENSA_CHECK(x.shape()[ax] % pool_size == 0, ValueError, "maxout: x.shape[", ax, "] (", x.shape()[ax],
                ") must be divisible by pool_size (", pool_size, ")");
    return std::make_shared<Maxout>(ax, pool_size)->apply({x})[0];
}

}  // namespace rensa::functions
