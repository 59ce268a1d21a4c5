// AdaDelta and its rule.

#include "optimizers/ada_delta.h"

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const AdaDeltaOptions& options) {
    h.set("rho", options.rho);
    h.set("eps", options.eps);
}

}  // namespace

AdaDeltaRule::AdaDeltaRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<AdaDeltaOptions, set_options>()) {}

void AdaDeltaRule::init_state(const Array& param) {
    state["msg"] = ops::zeros_like(param);
    state["msdx"] = ops::zeros_like(param);
}

void AdaDeltaRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    ops::optimizer_step({.rule = OptimizerRule::kAdaDelta,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("msg"),
                         .s1 = state.at("msdx"),
                         .rho = h.get("rho"),
                         .eps = h.get("eps")});
}

AdaDelta::AdaDelta(const AdaDeltaOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> AdaDelta::create_update_rule() { return std::make_shared<AdaDeltaRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
