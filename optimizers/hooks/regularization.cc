// WeightDecay and Lasso (chainer.optimizer_hooks.WeightDecay / Lasso).

#include "core/ops/elementwise.h"
#include "optimizers/hooks.h"

namespace rensa::optimizer_hooks {

namespace {

// Optimizer-level hooks see grads still multiplied by the loss scale (the rule divides
// them later), so a rate added to them must be scaled too. See Note [Loss scale in update
// rules] in optimizers/update_rule.cc.
double scaled_rate(double rate, const links::Parameter& param) {
    const std::optional<double> scale = param.loss_scale();
    return scale ? rate * *scale : rate;
}

}  // namespace

void WeightDecay::operator()(UpdateRule&, const links::Parameter& param) {
    if (!param.is_initialized()) return;
    const Array grad = param.grad();
    if (!grad.defined()) return;
    ops::add_inplace(grad, ops::multiply(param.array(), Scalar(scaled_rate(rate, param))));
}

void Lasso::operator()(UpdateRule&, const links::Parameter& param) {
    if (!param.is_initialized()) return;
    const Array grad = param.grad();
    if (!grad.defined()) return;
    ops::add_inplace(grad, ops::multiply(ops::sign(param.array()), Scalar(scaled_rate(rate, param))));
}

}  // namespace rensa::optimizer_hooks
