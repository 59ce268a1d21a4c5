// AdaGrad and its rule.

#include "optimizers/ada_grad.h"

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const AdaGradOptions& options) {
    h.set("lr", options.lr);
    h.set("eps", options.eps);
}

}  // namespace

AdaGradRule::AdaGradRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<AdaGradOptions, set_options>()) {}

void AdaGradRule::init_state(const Array& param) { state["h"] = ops::zeros_like(param); }

void AdaGradRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    ops::optimizer_step({.rule = OptimizerRule::kAdaGrad,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("h"),
                         .lr = h.get("lr"),
                         .eps = h.get("eps")});
}

AdaGrad::AdaGrad(const AdaGradOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> AdaGrad::create_update_rule() { return std::make_shared<AdaGradRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
