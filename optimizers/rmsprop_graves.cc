// RMSpropGraves and its rule.

#include "optimizers/rmsprop_graves.h"

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const RMSpropGravesOptions& options) {
    h.set("lr", options.lr);
    h.set("alpha", options.alpha);
    h.set("momentum", options.momentum);
    h.set("eps", options.eps);
}

}  // namespace

RMSpropGravesRule::RMSpropGravesRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<RMSpropGravesOptions, set_options>()) {}

void RMSpropGravesRule::init_state(const Array& param) {
    state["n"] = ops::zeros_like(param);
    state["g"] = ops::zeros_like(param);
    state["delta"] = ops::zeros_like(param);
}

void RMSpropGravesRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    ops::optimizer_step({.rule = OptimizerRule::kRmspropGraves,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("n"),
                         .s1 = state.at("g"),
                         .s2 = state.at("delta"),
                         .lr = h.get("lr"),
                         .momentum = h.get("momentum"),
                         .alpha = h.get("alpha"),
                         .eps = h.get("eps")});
}

RMSpropGraves::RMSpropGraves(const RMSpropGravesOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> RMSpropGraves::create_update_rule() {
    return std::make_shared<RMSpropGravesRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
