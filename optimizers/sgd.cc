// SGD and its rule.

#include "optimizers/sgd.h"

#include "core/ops/optimizer_step.h"

namespace rensa::optimizers {
namespace {

std::shared_ptr<const Hyperparameter> default_hyperparam() {
    static const auto defaults = [] {
        auto h = std::make_shared<Hyperparameter>();
        h->set("lr", SGDOptions{}.lr);
        return h;
    }();
    return defaults;
}

}  // namespace

SGDRule::SGDRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : default_hyperparam()) {}

void SGDRule::init_state(const Array&) {}

void SGDRule::update_core(const Array& param, const Array& grad) {
    ops::optimizer_step({.rule = OptimizerRule::kSgd, .param = param, .grad = grad, .lr = hyperparam().get("lr")});
}

SGD::SGD(const SGDOptions& options) { hyperparam().set("lr", options.lr); }

std::shared_ptr<UpdateRule> SGD::create_update_rule() { return std::make_shared<SGDRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
