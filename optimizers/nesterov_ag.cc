// NesterovAG and its rule.

#include "optimizers/nesterov_ag.h"

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
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

namespace {

// v = momentum * v - lr * grad; param += momentum^2 * v - (1 + momentum) * lr * grad
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t v = state(0), t0 = temp(0), t1 = temp(1);
    constexpr uint8_t lr = scalar(0), momentum = scalar(1), one = scalar(2);
    static constexpr ops::StaticUpdateCode kCode{{UpdateOp::kMul, t0, lr, kGrad},
                                                 {UpdateOp::kMulSub, v, momentum, v, t0},
                                                 {UpdateOp::kMul, t0, momentum, momentum},
                                                 {UpdateOp::kAdd, t1, one, momentum},
                                                 {UpdateOp::kMul, t1, t1, lr},
                                                 {UpdateOp::kMul, t1, t1, kGrad},
                                                 {UpdateOp::kMulSub, t0, t0, v, t1},
                                                 {UpdateOp::kAdd, kParam, kParam, t0}};
    static const auto p = ops::make_update_program<kCode>("nesterov_ag", {"v"}, 3);
    return p;
}

}  // namespace

FusedUpdateArgs NesterovAGRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("v")},
            .scalars = {h.get("lr"), h.get("momentum"), 1.0}};
}

void NesterovAGRule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

NesterovAG::NesterovAG(const NesterovAGOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> NesterovAG::create_update_rule() {
    return std::make_shared<NesterovAGRule>(hyperparam_ptr());
}

}  // namespace rensa::optimizers
