// CorrectedMomentumSGD and its rule.

#include "optimizers/corrected_momentum_sgd.h"

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const CorrectedMomentumSGDOptions& options) {
    h.set("lr", options.lr);
    h.set("momentum", options.momentum);
}

}  // namespace

CorrectedMomentumSGDRule::CorrectedMomentumSGDRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<CorrectedMomentumSGDOptions, set_options>()) {}

void CorrectedMomentumSGDRule::init_state(const Array& param) { state["v"] = ops::zeros_like(param); }

void CorrectedMomentumSGDRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    ops::optimizer_step({.rule = OptimizerRule::kCorrectedMomentumSgd,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("v"),
                         .lr = h.get("lr"),
                         .momentum = h.get("momentum")});
}

CorrectedMomentumSGD::CorrectedMomentumSGD(const CorrectedMomentumSGDOptions& options) {
    set_options(hyperparam(), options);
}

std::shared_ptr<UpdateRule> CorrectedMomentumSGD::create_update_rule() {
    return std::make_shared<CorrectedMomentumSGDRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
