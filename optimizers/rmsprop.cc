// RMSprop and its rule.

#include "optimizers/rmsprop.h"

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const RMSpropOptions& options) {
    h.set("lr", options.lr);
    h.set("alpha", options.alpha);
    h.set("eps", options.eps);
    h.set("eps_inside_sqrt", options.eps_inside_sqrt ? 1.0 : 0.0);
}

// Chainer's check that eps does not vanish in the dtype the update computes in (float32
// for float16 and bfloat16 parameters).
void check_eps(double eps, Dtype dtype) {
    const bool vanishes = dtype != Dtype::kFloat64 && eps != 0.0 && static_cast<float>(eps) == 0.0f;
    RENSA_CHECK(!vanishes, ValueError, "eps of RMSprop optimizer is too small for float32 (", eps, ")");
}

}  // namespace

RMSpropRule::RMSpropRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<RMSpropOptions, set_options>()) {}

void RMSpropRule::init_state(const Array& param) { state["ms"] = ops::zeros_like(param); }

void RMSpropRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    check_eps(h.get("eps"), param.dtype());
    ops::optimizer_step({.rule = OptimizerRule::kRmsprop,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("ms"),
                         .lr = h.get("lr"),
                         .alpha = h.get("alpha"),
                         .eps = h.get("eps"),
                         .eps_inside_sqrt = h.get("eps_inside_sqrt") != 0.0});
}

RMSprop::RMSprop(const RMSpropOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> RMSprop::create_update_rule() { return std::make_shared<RMSpropRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
