// Adam, its rule and the convenience variants.

#include "optimizers/adam.h"

#include <cmath>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
#include "optimizers/rule_defaults.h"

namespace rensa::optimizers {
namespace {

void set_options(Hyperparameter& h, const AdamOptions& options) {
    h.set("alpha", options.alpha);
    h.set("beta1", options.beta1);
    h.set("beta2", options.beta2);
    h.set("eps", options.eps);
    h.set("eta", options.eta);
    h.set("weight_decay_rate", options.weight_decay_rate);
    h.set("amsgrad", options.amsgrad ? 1.0 : 0.0);
    h.set("adabound", options.adabound ? 1.0 : 0.0);
    h.set("final_lr", options.final_lr);
    h.set("gamma", options.gamma);
}

double learning_rate(const Hyperparameter& h, int64_t t) {
    RENSA_CHECK(t != 0, Error,
                "Can't determine the learning rate of Adam optimizer because the update steps have not been started.");
    const double fix1 = 1.0 - std::pow(h.get("beta1"), static_cast<double>(t));
    const double fix2 = 1.0 - std::pow(h.get("beta2"), static_cast<double>(t));
    return h.get("alpha") * std::sqrt(fix2) / fix1;
}

// Chainer's check that eps does not vanish in the dtype the update computes in (float32
// for float16 and bfloat16 parameters).
void check_eps(double eps, Dtype dtype) {
    const bool vanishes = dtype != Dtype::kFloat64 && eps != 0.0 && static_cast<float>(eps) == 0.0f;
    RENSA_CHECK(!vanishes, ValueError, "eps of Adam optimizer is too small for float32 (", eps, ")");
}

}  // namespace

AdamRule::AdamRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : detail::default_hyperparam<AdamOptions, set_options>()),
      initial_alpha_{hyperparam().get("alpha")} {}

double AdamRule::alpha_t() const { return learning_rate(hyperparam(), t); }

std::pair<double, double> AdamRule::bounds() const {
    RENSA_CHECK(t != 0, Error,
                "Can't determine the bounds of AdaBound optimizer because the update steps have not been started.");
    const Hyperparameter& h = hyperparam();
    // Chainer's workaround so that LR shifts of alpha also move final_lr.
    const double final_lr = h.get("final_lr") * h.get("alpha") / initial_alpha_;
    const double gt = h.get("gamma") * static_cast<double>(t);
    return {final_lr * (1.0 - 1.0 / (gt + 1.0)), final_lr * (1.0 + 1.0 / gt)};
}

void AdamRule::init_state(const Array& param) {
    state["m"] = ops::zeros_like(param);
    state["v"] = ops::zeros_like(param);
    if (hyperparam().get("amsgrad") != 0.0) state["vhat"] = ops::zeros_like(param);
}

namespace {

// m += (1 - beta1) * (grad - m); v += (1 - beta2) * (grad^2 - v); with amsgrad vhat =
// max(vhat, v) replaces v below; step = alpha_t / (sqrt(v) + eps), with adabound clipped to
// [lower, upper]; param -= eta * (step * m + weight_decay_rate * param)
constexpr ops::StaticUpdateCode code(bool amsgrad, bool adabound) {
    using namespace ops::update_registers;
    constexpr uint8_t m = state(0), v = state(1), vhat = state(2), t0 = temp(0), t1 = temp(1), t2 = temp(2);
    constexpr uint8_t alpha_t = scalar(0), one_minus_beta1 = scalar(1), one_minus_beta2 = scalar(2), eps = scalar(3);
    constexpr uint8_t eta = scalar(4), weight_decay_rate = scalar(5), lower = scalar(6), upper = scalar(7);
    ops::StaticUpdateCode c{{UpdateOp::kSub, t0, kGrad, m},
                            {UpdateOp::kMulAdd, m, one_minus_beta1, t0, m},
                            {UpdateOp::kMulSub, t0, kGrad, kGrad, v},
                            {UpdateOp::kMulAdd, v, one_minus_beta2, t0, v}};
    if (amsgrad) c.push({UpdateOp::kMax, vhat, vhat, v});
    c.push({UpdateOp::kSqrt, t1, amsgrad ? vhat : v});
    c.push({UpdateOp::kAdd, t1, t1, eps});
    c.push({UpdateOp::kDiv, t1, alpha_t, t1});  // the step
    if (adabound) {
        c.push({UpdateOp::kMin, t1, t1, upper});
        c.push({UpdateOp::kMax, t1, t1, lower});
    }
    c.push({UpdateOp::kMul, t2, weight_decay_rate, kParam});
    c.push({UpdateOp::kMulAdd, t2, t1, m, t2});
    c.push({UpdateOp::kSubMul, kParam, eta, t2, kParam});
    return c;
}

template <bool kAmsgrad, bool kAdabound>
std::shared_ptr<const UpdateProgram> make_program() {
    std::vector<std::string> states = {"m", "v"};
    if (kAmsgrad) states.emplace_back("vhat");
    return ops::make_update_program<code(kAmsgrad, kAdabound)>("adam", std::move(states), 8);
}

std::shared_ptr<const UpdateProgram> program(bool amsgrad, bool adabound) {
    static const std::shared_ptr<const UpdateProgram> programs[2][2] = {
        {make_program<false, false>(), make_program<false, true>()},
        {make_program<true, false>(), make_program<true, true>()}};
    return programs[amsgrad][adabound];
}

}  // namespace

FusedUpdateArgs AdamRule::update_args(const Array& param, const Array& grad) const {
    const Hyperparameter& h = hyperparam();
    check_eps(h.get("eps"), param.dtype());
    const bool amsgrad = h.get("amsgrad") != 0.0;
    const bool adabound = h.get("adabound") != 0.0;
    const auto [lower, upper] = adabound ? bounds() : std::pair<double, double>{0.0, 0.0};
    return {.program = program(amsgrad, adabound),
            .param = param,
            .grad = grad,
            .states = {state.at("m"), state.at("v"), amsgrad ? state.at("vhat") : Array()},
            .scalars = {alpha_t(), 1.0 - h.get("beta1"), 1.0 - h.get("beta2"), h.get("eps"), h.get("eta"),
                        h.get("weight_decay_rate"), lower, upper}};
}

void AdamRule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

Adam::Adam(const AdamOptions& options) { set_options(hyperparam(), options); }

double Adam::alpha_t() const { return learning_rate(hyperparam(), t); }

std::shared_ptr<UpdateRule> Adam::create_update_rule() { return std::make_shared<AdamRule>(hyperparam_ptr()); }

AdamW::AdamW(const AdamWOptions& o)
    : Adam({.alpha = o.alpha,
            .beta1 = o.beta1,
            .beta2 = o.beta2,
            .eps = o.eps,
            .eta = o.eta,
            .weight_decay_rate = o.weight_decay_rate}) {}

AMSGrad::AMSGrad(const AMSGradOptions& o)
    : Adam({.alpha = o.alpha, .beta1 = o.beta1, .beta2 = o.beta2, .eps = o.eps, .eta = o.eta, .amsgrad = true}) {}

AdaBound::AdaBound(const AdaBoundOptions& o)
    : Adam({.alpha = o.alpha,
            .beta1 = o.beta1,
            .beta2 = o.beta2,
            .eps = o.eps,
            .eta = o.eta,
            .adabound = true,
            .final_lr = o.final_lr,
            .gamma = o.gamma}) {}

AMSBound::AMSBound(const AdaBoundOptions& o)
    : Adam({.alpha = o.alpha,
            .beta1 = o.beta1,
            .beta2 = o.beta2,
            .eps = o.eps,
            .eta = o.eta,
            .amsgrad = true,
            .adabound = true,
            .final_lr = o.final_lr,
            .gamma = o.gamma}) {}

}  // namespace rensa::optimizers
