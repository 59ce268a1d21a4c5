// MomentumSGD and its rule.

#include "optimizers/momentum_sgd.h"

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
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

namespace {

// v = momentum * v - lr * grad; param += v
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t v = state(0), t = temp(0), lr = scalar(0), momentum = scalar(1);
    static constexpr ops::StaticUpdateCode kCode{
        {UpdateOp::kMul, t, lr, kGrad}, {UpdateOp::kMulSub, v, momentum, v, t}, {UpdateOp::kAdd, kParam, kParam, v}};
    static const auto p = ops::make_update_program<kCode>("momentum_sgd", {"v"}, 2);
    return p;
}

}  // namespace

FusedUpdateArgs MomentumSGDRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("v")},
            .scalars = {h.get("lr"), h.get("momentum")}};
}

void MomentumSGDRule::update_core(const Array& param, const Array& grad) {
    ops::fused_update(update_args(param, grad));
}

MomentumSGD::MomentumSGD(const MomentumSGDOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> MomentumSGD::create_update_rule() {
    return std::make_shared<MomentumSGDRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
