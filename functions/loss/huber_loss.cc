#include <memory>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

// d = x - t; 0.5 d^2 inside |d| <= delta, delta (|d| - delta / 2) outside; optionally summed
// over axis 1. gx = gy clip(d, -delta, delta) = -gt, with the clip written as
// mask * d + outside constant so it stays differentiable.
class HuberLoss : public FunctionNode {
public:
    HuberLoss(double delta, bool sum_axis1) : delta_{delta}, sum_axis1_{sum_axis1} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        const Array a = ops::abs(ops::subtract(xs[0], xs[1]));
        const Array loss = ops::where(ops::less_equal(a, delta_), ops::multiply(ops::square(a), 0.5),
                                      ops::multiply(ops::subtract(a, 0.5 * delta_), delta_));
        return {sum_axis1_ ? ops::sum(loss, Axes{1}) : loss};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Variable diff = retained_input(0) - retained_input(1);
        const Array& d = diff.array();
        const Array inside = ops::less_equal(ops::abs(d), delta_).astype(d.dtype());
        const Array outside = ops::multiply(ops::multiply(ops::sign(d), ops::subtract(1.0, inside)), delta_);
        const Variable clipped = diff * Variable(inside, false) + Variable(outside, false);
        Shape gy_shape = gys[0].shape();
        if (sum_axis1_) gy_shape.insert(1, 1);
        const Variable gx = rensa::broadcast_to(rensa::reshape(gys[0], gy_shape), d.shape()) * clipped;
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(i == 0 ? gx : -gx);
        return gxs;
    }
    std::string label() const override { return "HuberLoss"; }

private:
    double delta_;
    bool sum_axis1_;
};

}  // namespace

Variable huber_loss(const Variable& x, const Variable& t, double delta, std::string_view reduce) {
    detail::check_loss_reduce("huber_loss", reduce, {"sum_along_second_axis", "no"});
    expect_float(x, "huber_loss", "x");
    expect_same_dtype(x, t, "huber_loss", "x", "t");
    expect_same_shape(x, t, "huber_loss", "x", "t");
    const bool sum_axis1 = reduce == "sum_along_second_axis";
    RENSA_CHECK(!sum_axis1 || x.ndim() >= 2, DimensionError,
                "huber_loss: reduce='sum_along_second_axis' needs x.ndim >= 2, Actual: ", x.ndim());
    return std::make_shared<HuberLoss>(delta, sum_axis1)->apply({x, t})[0];
}

}  // namespace rensa::functions
