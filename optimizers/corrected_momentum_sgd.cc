// CorrectedMomentumSGD and its rule.

#include "optimizers/corrected_momentum_sgd.h"

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
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

namespace {

// v = momentum * v - grad; param += lr * v
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t v = state(0), lr = scalar(0), momentum = scalar(1);
    static constexpr ops::StaticUpdateCode kCode{{UpdateOp::kMulSub, v, momentum, v, kGrad},
                                                 {UpdateOp::kMulAdd, kParam, lr, v, kParam}};
    static const auto p = ops::make_update_program<kCode>("corrected_momentum_sgd", {"v"}, 2);
    return p;
}

}  // namespace

FusedUpdateArgs CorrectedMomentumSGDRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("v")},
            .scalars = {h.get("lr"), h.get("momentum")}};
}

void CorrectedMomentumSGDRule::update_core(const Array& param, const Array& grad) {
    ops::fused_update(update_args(param, grad));
}

CorrectedMomentumSGD::CorrectedMomentumSGD(const CorrectedMomentumSGDOptions& options) {
    set_options(hyperparam(), options);
}

std::shared_ptr<UpdateRule> CorrectedMomentumSGD::create_update_rule() {
    return std::make_shared<CorrectedMomentumSGDRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
