// RMSpropGraves and its rule.

#include "optimizers/rmsprop_graves.h"

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
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

namespace {

// n = alpha * n + (1 - alpha) * grad^2; g = alpha * g + (1 - alpha) * grad;
// delta = momentum * delta - lr * grad / sqrt(n - g^2 + eps); param += delta
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t n = state(0), g = state(1), delta = state(2), t0 = temp(0), t1 = temp(1);
    constexpr uint8_t lr = scalar(0), alpha = scalar(1), one_minus_alpha = scalar(2), momentum = scalar(3),
                      eps = scalar(4);
    static constexpr ops::StaticUpdateCode kCode{{UpdateOp::kMul, t0, one_minus_alpha, kGrad},
                                                 {UpdateOp::kMul, t0, t0, kGrad},
                                                 {UpdateOp::kMulAdd, n, alpha, n, t0},
                                                 {UpdateOp::kMul, t0, one_minus_alpha, kGrad},
                                                 {UpdateOp::kMulAdd, g, alpha, g, t0},
                                                 {UpdateOp::kSubMul, t0, g, g, n},
                                                 {UpdateOp::kAdd, t0, t0, eps},
                                                 {UpdateOp::kSqrt, t0, t0},
                                                 {UpdateOp::kMul, t1, lr, kGrad},
                                                 {UpdateOp::kDiv, t1, t1, t0},
                                                 {UpdateOp::kMulSub, delta, momentum, delta, t1},
                                                 {UpdateOp::kAdd, kParam, kParam, delta}};
    static const auto p = ops::make_update_program<kCode>("rmsprop_graves", {"n", "g", "delta"}, 5);
    return p;
}

}  // namespace

FusedUpdateArgs RMSpropGravesRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    const double alpha = h.get("alpha");
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("n"), state.at("g"), state.at("delta")},
            .scalars = {h.get("lr"), alpha, 1.0 - alpha, h.get("momentum"), h.get("eps")}};
}

void RMSpropGravesRule::update_core(const Array& param, const Array& grad) {
    ops::fused_update(update_args(param, grad));
}

RMSpropGraves::RMSpropGraves(const RMSpropGravesOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> RMSpropGraves::create_update_rule() {
    return std::make_shared<RMSpropGravesRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
