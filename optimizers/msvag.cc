// MSVAG and its rule.

#include "optimizers/msvag.h"

#include <algorithm>
#include <cmath>

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
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

namespace {

// m += (1 - beta) * (grad - m); v += (1 - beta) * (grad^2 - v); mt = m / (1 - beta^t);
// vt = v / (1 - beta^t); var = (vt - mt^2) / (1 - rho); factor = mt^2 / (mt^2 + rho * var)
// clipped to [0, 1] (NaN gives 0); param -= eta * (lr * mt * factor + weight_decay_rate * param)
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t m = state(0), v = state(1), t0 = temp(0), t1 = temp(1), t2 = temp(2), t3 = temp(3);
    constexpr uint8_t lr = scalar(0), one_minus_beta = scalar(1), inv_bias = scalar(2), inv_one_minus_rho = scalar(3);
    constexpr uint8_t rho = scalar(4), eta = scalar(5), weight_decay_rate = scalar(6), zero = scalar(7),
                      one = scalar(8);
    static constexpr ops::StaticUpdateCode kCode{{UpdateOp::kSub, t0, kGrad, m},
                                                 {UpdateOp::kMulAdd, m, one_minus_beta, t0, m},
                                                 {UpdateOp::kMulSub, t0, kGrad, kGrad, v},
                                                 {UpdateOp::kMulAdd, v, one_minus_beta, t0, v},
                                                 {UpdateOp::kMul, t0, m, inv_bias},  // mt
                                                 {UpdateOp::kMul, t1, v, inv_bias},  // vt
                                                 {UpdateOp::kMul, t2, t0, t0},       // mt^2
                                                 {UpdateOp::kSub, t1, t1, t2},
                                                 {UpdateOp::kMul, t1, t1, inv_one_minus_rho},  // var
                                                 {UpdateOp::kMulAdd, t3, rho, t1, t2},
                                                 {UpdateOp::kDiv, t3, t2, t3},
                                                 {UpdateOp::kMin, t3, t3, one},
                                                 {UpdateOp::kMax, t3, zero, t3},  // NaN and negatives give 0
                                                 {UpdateOp::kMul, t1, lr, t0},
                                                 {UpdateOp::kMul, t2, weight_decay_rate, kParam},
                                                 {UpdateOp::kMulAdd, t1, t1, t3, t2},
                                                 {UpdateOp::kSubMul, kParam, eta, t1, kParam}};
    static const auto p = ops::make_update_program<kCode>("msvag", {"m", "v"}, 9);
    return p;
}

}  // namespace

FusedUpdateArgs MSVAGRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    const double beta = h.get("beta");
    const double beta_power = std::pow(beta, static_cast<double>(t));  // t counts this step
    const double rho = std::min(0.9999, (1.0 - beta) * (1.0 - beta) * (1.0 - beta_power * beta_power) /
                                            ((1.0 - beta_power) * (1.0 - beta_power) * (1.0 - beta * beta)));
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("m"), state.at("v")},
            .scalars = {h.get("lr"), 1.0 - beta, 1.0 / (1.0 - beta_power), 1.0 / (1.0 - rho), rho, h.get("eta"),
                        h.get("weight_decay_rate"), 0.0, 1.0}};
}

void MSVAGRule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

MSVAG::MSVAG(const MSVAGOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> MSVAG::create_update_rule() { return std::make_shared<MSVAGRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
