// NesterovAG and its rule.

#include "optimizers/nesterov_ag.h"

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const NesterovAGOptions& options) {
    h.set("lr", options.lr);
    h.set("momentum", options.momentum);
}

}  // namespace

NesterovAGRule::NesterovAGRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<NesterovAGOptions, set_options>()) {}

void NesterovAGRule::init_state(const Array& param) { state["v"] = ops::zeros_like(param); }

void NesterovAGRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    ops::optimizer_step({.rule = OptimizerRule::kNesterovAg,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("v"),
                         .lr = h.get("lr"),
                         .momentum = h.get("momentum")});
}

NesterovAG::NesterovAG(const NesterovAGOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> NesterovAG::create_update_rule() {
    return std::make_shared<NesterovAGRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
