// SMORMS3 and its rule.

#include "optimizers/smorms3.h"

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const SMORMS3Options& options) {
    h.set("lr", options.lr);
    h.set("eps", options.eps);
}

}  // namespace

SMORMS3Rule::SMORMS3Rule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<SMORMS3Options, set_options>()) {}

void SMORMS3Rule::init_state(const Array& param) {
    state["mem"] = ops::ones_like(param);
    state["g"] = ops::zeros_like(param);
    state["g2"] = ops::zeros_like(param);
}

void SMORMS3Rule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    ops::optimizer_step({.rule = OptimizerRule::kSmorms3,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("mem"),
                         .s1 = state.at("g"),
                         .s2 = state.at("g2"),
                         .lr = h.get("lr"),
                         .eps = h.get("eps")});
}

SMORMS3::SMORMS3(const SMORMS3Options& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> SMORMS3::create_update_rule() { return std::make_shared<SMORMS3Rule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
