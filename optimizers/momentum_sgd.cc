// MomentumSGD and its rule.

#include "optimizers/momentum_sgd.h"

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const MomentumSGDOptions& options) {
    h.set("lr", options.lr);
    h.set("momentum", options.momentum);
}

}  // namespace

MomentumSGDRule::MomentumSGDRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<MomentumSGDOptions, set_options>()) {}

void MomentumSGDRule::init_state(const Array& param) { state["v"] = ops::zeros_like(param); }

void MomentumSGDRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    ops::optimizer_step({.rule = OptimizerRule::kMomentumSgd,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("v"),
                         .lr = h.get("lr"),
                         .momentum = h.get("momentum")});
}

MomentumSGD::MomentumSGD(const MomentumSGDOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> MomentumSGD::create_update_rule() {
    return std::make_shared<MomentumSGDRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
