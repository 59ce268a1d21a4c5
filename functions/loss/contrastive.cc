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

// d = ||x0 - x1|| per row; loss = (y d^2 + (1 - y) max(margin - d, 0)^2) / 2. The backward is
// Chainer's: gx0 = alpha (y diff - (1 - y) max(margin - d, 0) diff / max(d, 1e-7)) = -gx1,
// with the max()es written as constant masks so it is differentiable again.
class Contrastive : public FunctionNode {
public:
    Contrastive(double margin, bool mean) : margin_{margin}, mean_{mean} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        const Array diff = ops::subtract(xs[0], xs[1]);
        const Array dist_sq = ops::sum(ops::square(diff), Axes{1});
        const Array md = ops::maximum(ops::subtract(margin_, ops::sqrt(dist_sq)), 0);
        y_ = xs[2].astype(xs[0].dtype()).reshape({-1, 1});
        const Array y = y_.reshape({-1});
        const Array loss = ops::multiply(
            ops::add(ops::multiply(y, dist_sq), ops::multiply(ops::subtract(1, y), ops::square(md))), 0.5);
        if (!mean_) return {loss};
        return {ops::divide(ops::sum(loss), static_cast<double>(xs[0].shape()[0]))};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const int64_t n = input_shape(0)[0];
        const Variable diff = retained_input(0) - retained_input(1);
        const Variable dist = rensa::pow(rensa::sum(diff * diff, Axes{1}, true), 0.5);
        const Variable mdist = margin_ - dist;
        const Array keep_dist = ops::greater(dist.array(), 1e-7).astype(dist.dtype());
        const Array keep_mdist = ops::greater(mdist.array(), 0).astype(dist.dtype());
        const Variable dist_c =
            dist * Variable(keep_dist, false) + Variable(ops::multiply(ops::subtract(1, keep_dist), 1e-7), false);
        const Variable mdist_c = mdist * Variable(keep_mdist, false);
        const Variable alpha = mean_ ? gys[0] / static_cast<double>(n) : rensa::reshape(gys[0], {n, 1});
        const Variable y{y_, false};
        const Variable gx0 = alpha * (y * diff - (1.0 - y) * mdist_c * diff / dist_c);
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(i == 0 ? gx0 : i == 1 ? -gx0 : Variable());
        return gxs;
    }
    std::string label() const override { return "Contrastive"; }

private:
    double margin_;
    bool mean_;
    Array y_;  // (N, 1) in x's dtype
};

}  // namespace

Variable contrastive(const Variable& x0, const Variable& x1, const Variable& y, double margin,
                     std::string_view reduce) {
    detail::check_loss_reduce("contrastive", reduce, {"mean", "no"});
    RENSA_CHECK(margin > 0, ValueError, "contrastive: margin should be positive value, but ", margin, " is given");
    expect_float(x0, "contrastive", "x0");
    expect_same_dtype(x0, x1, "contrastive", "x0", "x1");
    expect_same_shape(x0, x1, "contrastive", "x0", "x1");
    expect_integer(y, "contrastive", "y");
    expect_ndim(x0, 2, "contrastive", "x0");
    expect_ndim(y, 1, "contrastive", "y");
    RENSA_CHECK(x0.shape()[0] == y.shape()[0], DimensionError,
                "contrastive: Expect: x0.shape[0] == y.shape[0], Actual: ", x0.shape()[0], " != ", y.shape()[0]);
    RENSA_CHECK(x0.shape()[0] > 0, DimensionError, "contrastive: Expect: x0.shape[0] > 0, Actual: 0");
    detail::check_loss_labels("contrastive", "y", y.array(), 2);
    return std::make_shared<Contrastive>(margin, reduce == "mean")->apply({x0, x1, y})[0];
}

}  // namespace rensa::functions
