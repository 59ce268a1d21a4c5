// SMORMS3 and its rule.

#include "optimizers/smorms3.h"

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const SMORMS3Options& options) {
    h.set("lr", options.lr);
    h.set("eps", options.eps);
}

}  // namespace

SMORMS3Rule::SMORMS3Rule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<SMORMS3Options, set_options>()) {}

void SMORMS3Rule::init_state(const Array& param) {
    state["mem"] = ops::ones_like(param);
    state["g"] = ops::zeros_like(param);
    state["g2"] = ops::zeros_like(param);
}

namespace {

// r = 1 / (mem + 1); g = (1 - r) * g + r * grad; g2 = (1 - r) * g2 + r * grad^2;
// x = g^2 / (g2 + eps); param -= grad * min(x, lr) / (sqrt(g2) + eps); mem = 1 + mem * (1 - x)
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t mem = state(0), g = state(1), g2 = state(2), t0 = temp(0), t1 = temp(1), t2 = temp(2);
    constexpr uint8_t lr = scalar(0), eps = scalar(1), one = scalar(2);
    static constexpr ops::StaticUpdateCode kCode{
        {UpdateOp::kAdd, t0, mem, one},  {UpdateOp::kDiv, t0, one, t0},  // r
        {UpdateOp::kSub, t1, one, t0},                                   // 1 - r
        {UpdateOp::kMul, t2, t0, kGrad}, {UpdateOp::kMulAdd, g, t1, g, t2},     {UpdateOp::kMul, t2, t0, kGrad},
        {UpdateOp::kMul, t2, t2, kGrad}, {UpdateOp::kMulAdd, g2, t1, g2, t2},   {UpdateOp::kMul, t0, g, g},
        {UpdateOp::kAdd, t1, g2, eps},   {UpdateOp::kDiv, t0, t0, t1},  // x
        {UpdateOp::kMin, t1, t0, lr},    {UpdateOp::kMul, t1, kGrad, t1},       {UpdateOp::kSqrt, t2, g2},
        {UpdateOp::kAdd, t2, t2, eps},   {UpdateOp::kDiv, t1, t1, t2},          {UpdateOp::kSub, kParam, kParam, t1},
        {UpdateOp::kSub, t1, one, t0},   {UpdateOp::kMulAdd, mem, mem, t1, one}};
    static const auto p = ops::make_update_program<kCode>("smorms3", {"mem", "g", "g2"}, 3);
    return p;
}

}  // namespace

FusedUpdateArgs SMORMS3Rule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    return {.program = program(),
            .param = param,
            .grad = grad,
            .states = {state.at("mem"), state.at("g"), state.at("g2")},
            .scalars = {h.get("lr"), h.get("eps"), 1.0}};
}

void SMORMS3Rule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

SMORMS3::SMORMS3(const SMORMS3Options& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> SMORMS3::create_update_rule() { return std::make_shared<SMORMS3Rule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
