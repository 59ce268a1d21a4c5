// AdaGrad and its rule.

#include "optimizers/ada_grad.h"

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const AdaGradOptions& options) {
    h.set("lr", options.lr);
    h.set("eps", options.eps);
}

}  // namespace

AdaGradRule::AdaGradRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<AdaGradOptions, set_options>()) {}

void AdaGradRule::init_state(const Array& param) { state["h"] = ops::zeros_like(param); }

namespace {

// h += grad^2; param -= lr * grad / (sqrt(h) + eps)
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t h = state(0), t0 = temp(0), t1 = temp(1), lr = scalar(0), eps = scalar(1);
    static constexpr ops::StaticUpdateCode kCode{
        {UpdateOp::kMulAdd, h, kGrad, kGrad, h}, {UpdateOp::kSqrt, t0, h},     {UpdateOp::kAdd, t0, t0, eps},
        {UpdateOp::kMul, t1, lr, kGrad},         {UpdateOp::kDiv, t1, t1, t0}, {UpdateOp::kSub, kParam, kParam, t1}};
    static const auto p = ops::make_update_program<kCode>("ada_grad", {"h"}, 2);
    return p;
}

}  // namespace

FusedUpdateArgs AdaGradRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("h")},
            .scalars = {h.get("lr"), h.get("eps")}};
}

void AdaGradRule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

AdaGrad::AdaGrad(const AdaGradOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> AdaGrad::create_update_rule() { return std::make_shared<AdaGradRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
