// AdaDelta and its rule.

#include "optimizers/ada_delta.h"

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const AdaDeltaOptions& options) {
    h.set("rho", options.rho);
    h.set("eps", options.eps);
}

}  // namespace

AdaDeltaRule::AdaDeltaRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<AdaDeltaOptions, set_options>()) {}

void AdaDeltaRule::init_state(const Array& param) {
    state["msg"] = ops::zeros_like(param);
    state["msdx"] = ops::zeros_like(param);
}

namespace {

// msg = rho * msg + (1 - rho) * grad^2; dx = sqrt((msdx + eps) / (msg + eps)) * grad;
// msdx = rho * msdx + (1 - rho) * dx^2; param -= dx
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t msg = state(0), msdx = state(1), t0 = temp(0), t1 = temp(1);
    constexpr uint8_t rho = scalar(0), one_minus_rho = scalar(1), eps = scalar(2);
    static constexpr ops::StaticUpdateCode kCode{{UpdateOp::kMul, t0, one_minus_rho, kGrad},
                                                 {UpdateOp::kMul, t0, t0, kGrad},
                                                 {UpdateOp::kMulAdd, msg, rho, msg, t0},
                                                 {UpdateOp::kAdd, t0, msdx, eps},
                                                 {UpdateOp::kAdd, t1, msg, eps},
                                                 {UpdateOp::kDiv, t0, t0, t1},
                                                 {UpdateOp::kSqrt, t0, t0},
                                                 {UpdateOp::kMul, t0, t0, kGrad},  // dx
                                                 {UpdateOp::kMul, t1, one_minus_rho, t0},
                                                 {UpdateOp::kMul, t1, t1, t0},
                                                 {UpdateOp::kMulAdd, msdx, rho, msdx, t1},
                                                 {UpdateOp::kSub, kParam, kParam, t0}};
    static const auto p = ops::make_update_program<kCode>("ada_delta", {"msg", "msdx"}, 3);
    return p;
}

}  // namespace

FusedUpdateArgs AdaDeltaRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    const double rho = h.get("rho");
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("msg"), state.at("msdx")},
            .scalars = {rho, 1.0 - rho, h.get("eps")}};
}

void AdaDeltaRule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

AdaDelta::AdaDelta(const AdaDeltaOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> AdaDelta::create_update_rule() { return std::make_shared<AdaDeltaRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
