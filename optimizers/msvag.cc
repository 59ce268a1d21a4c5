// MSVAG and its rule.

#include "optimizers/msvag.h"

#include <algorithm>
#include <cmath>

#include "core/ops/creation.h"
#include "core/ops/optimizer_step.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const MSVAGOptions& options) {
    h.set("lr", options.lr);
    h.set("beta", options.beta);
    h.set("eta", options.eta);
    h.set("weight_decay_rate", options.weight_decay_rate);
}

}  // namespace

MSVAGRule::MSVAGRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<MSVAGOptions, set_options>()) {}

void MSVAGRule::init_state(const Array& param) {
    state["m"] = ops::zeros_like(param);
    state["v"] = ops::zeros_like(param);
}

void MSVAGRule::update_core(const Array& param, const Array& grad) {
    const Hyperparameter& h = hyperparam();
    const double beta = h.get("beta");
    const double beta_power = std::pow(beta, static_cast<double>(t));  // t counts this step
    const double rho = std::min(0.9999, (1.0 - beta) * (1.0 - beta) * (1.0 - beta_power * beta_power) /
                                            ((1.0 - beta_power) * (1.0 - beta_power) * (1.0 - beta * beta)));
    ops::optimizer_step({.rule = OptimizerRule::kMsvag,
                         .param = param,
                         .grad = grad,
                         .s0 = state.at("m"),
                         .s1 = state.at("v"),
                         .lr = h.get("lr"),
                         .rho = rho,
                         .beta = beta,
                         .eta = h.get("eta"),
                         .weight_decay_rate = h.get("weight_decay_rate"),
                         .beta_power = beta_power});
}

MSVAG::MSVAG(const MSVAGOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> MSVAG::create_update_rule() { return std::make_shared<MSVAGRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
