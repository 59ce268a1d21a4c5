// RMSprop and its rule.

#include "optimizers/rmsprop.h"

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
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

namespace {

// ms = alpha * ms + (1 - alpha) * grad^2; param -= lr * grad / (sqrt(ms) + eps), or with
// eps_inside_sqrt lr * grad / sqrt(ms + eps)
constexpr ops::StaticUpdateCode code(bool eps_inside_sqrt) {
    using namespace ops::update_registers;
    constexpr uint8_t ms = state(0), t0 = temp(0), t1 = temp(1);
    constexpr uint8_t lr = scalar(0), alpha = scalar(1), one_minus_alpha = scalar(2), eps = scalar(3);
    ops::StaticUpdateCode c{{UpdateOp::kMul, t0, one_minus_alpha, kGrad},
                            {UpdateOp::kMul, t0, t0, kGrad},
                            {UpdateOp::kMulAdd, ms, alpha, ms, t0}};
    if (eps_inside_sqrt) {
        c.push({UpdateOp::kAdd, t1, ms, eps});
        c.push({UpdateOp::kSqrt, t1, t1});
    } else {
        c.push({UpdateOp::kSqrt, t1, ms});
        c.push({UpdateOp::kAdd, t1, t1, eps});
    }
    c.push({UpdateOp::kMul, t0, lr, kGrad});
    c.push({UpdateOp::kDiv, t0, t0, t1});
    c.push({UpdateOp::kSub, kParam, kParam, t0});
    return c;
}

std::shared_ptr<const UpdateProgram> program(bool eps_inside_sqrt) {
    static const auto outside = ops::make_update_program<code(false)>("rmsprop", {"ms"}, 4);
    static const auto inside = ops::make_update_program<code(true)>("rmsprop", {"ms"}, 4);
    return eps_inside_sqrt ? inside : outside;
}

}  // namespace

FusedUpdateArgs RMSpropRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    check_eps(h.get("eps"), param.dtype());
    const double alpha = h.get("alpha");
    return {.program = program(h.get("eps_inside_sqrt") != 0.0),
            .param = param,
            .grad = grad,
            .states = {state.at("ms")},
            .scalars = {h.get("lr"), alpha, 1.0 - alpha, h.get("eps")}};
}

void RMSpropRule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

RMSprop::RMSprop(const RMSpropOptions& options) { set_options(hyperparam(), options); }

std::shared_ptr<UpdateRule> RMSprop::create_update_rule() { return std::make_shared<RMSpropRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
