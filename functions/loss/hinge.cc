#include <memory>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

// With s = -1 at the label and +1 elsewhere, b = max(0, 1 + s x): loss b (L1) or b^2 (L2).
// gx = g s [b > 0] (L1) or 2 g s b (L2), g = gy (/ N for "mean"); b is written as
// mask (1 + s x) so the L2 gradient is differentiable again.
class Hinge : public FunctionNode {
public:
    Hinge(bool l2, bool mean) : l2_{l2}, mean_{mean} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        const Array& x = xs[0];
        retain_inputs({0});
        const Array onehot = ops::equal(ops::arange(x.shape()[1]).reshape({1, -1}), xs[1].reshape({-1, 1}));
        sign_ = ops::subtract(1.0, ops::multiply(onehot.astype(x.dtype()), 2.0));
        const Array margin = ops::add(ops::multiply(sign_, x), 1.0);
        mask_ = ops::greater(margin, 0).astype(x.dtype());
        const Array b = ops::multiply(margin, mask_);
        const Array loss = l2_ ? ops::square(b) : b;
        if (!mean_) return {loss};
        return {ops::divide(ops::sum(loss), static_cast<double>(x.shape()[0]))};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Shape& shape = input_shape(0);
        const Variable g = rensa::broadcast_to(mean_ ? gys[0] / static_cast<double>(shape[0]) : gys[0], shape);
        const Variable s{sign_, false};
        const Variable m{mask_, false};
        if (!l2_) return {g * (s * m)};
        return {2.0 * g * s * m * (1.0 + s * retained_input(0))};
    }
    std::string label() const override { return "Hinge"; }

private:
    bool l2_, mean_;
    Array sign_, mask_;
};

}  // namespace

Variable hinge(const Variable& x, const Variable& t, std::string_view norm, std::string_view reduce) {
    RENSA_CHECK(norm == "L1" || norm == "L2", NotImplementedError, "hinge: norm should be either 'L1' or 'L2', but '",
                norm, "' is given");
    detail::check_loss_reduce("hinge", reduce, {"mean", "no"});
    expect_float(x, "hinge", "x");
    expect_integer(t, "hinge", "t");
    expect_ndim(x, 2, "hinge", "x");
    expect_ndim(t, 1, "hinge", "t");
    RENSA_CHECK(x.shape()[0] == t.shape()[0], DimensionError,
                "hinge: Expect: x.shape[0] == t.shape[0], Actual: ", x.shape()[0], " != ", t.shape()[0]);
    detail::check_loss_labels("hinge", "t", t.array(), x.shape()[1]);
    return std::make_shared<Hinge>(norm == "L2", reduce == "mean")->apply({x, t})[0];
}

}  // namespace rensa::functions
