#pragma once
// Adam (chainer.optimizers.Adam) with Chainer's variants: decoupled weight decay (eta,
// weight_decay_rate: AdamW), AMSGrad (amsgrad: state vhat) and AdaBound (adabound:
// the step alpha_t / (sqrt(v) + eps) clipped to bounds that close in on final_lr), and
// the convenience classes AdamW, AMSGrad, AdaBound and AMSBound.
//   m += (1 - beta1) * (grad - m); v += (1 - beta2) * (grad^2 - v)
//   param -= eta * (alpha_t * m / (sqrt(v) + eps) + weight_decay_rate * param)

#include <memory>
#include <utility>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

// Chainer's constructor arguments and defaults.
struct AdamOptions {
    double alpha = 0.001;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double eta = 1.0;
    double weight_decay_rate = 0.0;
    bool amsgrad = false;
    bool adabound = false;
    double final_lr = 0.1;
    double gamma = 1e-3;
};

// Hyperparameters: alpha, beta1, beta2, eps, eta, weight_decay_rate, amsgrad, adabound
// (0 or 1), final_lr, gamma. State: m, v, and vhat with amsgrad.
class AdamRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults. AdaBound's
    // final_lr follows later changes of alpha relative to alpha at construction.
    explicit AdamRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // alpha * sqrt(1 - beta2^t) / (1 - beta1^t) at this rule's t; Error when t is 0.
    double alpha_t() const;
    // AdaBound's (lower, upper) bounds of the step at this rule's t; Error when t is 0.
    std::pair<double, double> bounds() const;
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;

private:
    double initial_alpha_;
};

class Adam : public GradientMethod {
public:
    explicit Adam(const AdamOptions& options = {});
    double alpha() const { return hyperparam().get("alpha"); }
    void set_alpha(double value) { hyperparam().set("alpha", value); }
    double beta1() const { return hyperparam().get("beta1"); }
    void set_beta1(double value) { hyperparam().set("beta1", value); }
    double beta2() const { return hyperparam().get("beta2"); }
    void set_beta2(double value) { hyperparam().set("beta2", value); }
    double eps() const { return hyperparam().get("eps"); }
    void set_eps(double value) { hyperparam().set("eps", value); }
    double eta() const { return hyperparam().get("eta"); }
    void set_eta(double value) { hyperparam().set("eta", value); }
    double weight_decay_rate() const { return hyperparam().get("weight_decay_rate"); }
    void set_weight_decay_rate(double value) { hyperparam().set("weight_decay_rate", value); }
    bool amsgrad() const { return hyperparam().get("amsgrad") != 0.0; }
    bool adabound() const { return hyperparam().get("adabound") != 0.0; }
    double final_lr() const { return hyperparam().get("final_lr"); }
    void set_final_lr(double value) { hyperparam().set("final_lr", value); }
    double gamma() const { return hyperparam().get("gamma"); }
    void set_gamma(double value) { hyperparam().set("gamma", value); }

    // alpha * sqrt(1 - beta2^t) / (1 - beta1^t) at the optimizer's t; Error when t is 0.
    double alpha_t() const;
    // Chainer's (deprecated) Adam.lr: alpha_t().
    double lr() const { return alpha_t(); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

struct AdamWOptions {
    double alpha = 0.001, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, eta = 1.0, weight_decay_rate = 0.0;
};
// Adam with decoupled weight decay (Loshchilov & Hutter).
class AdamW : public Adam {
public:
    explicit AdamW(const AdamWOptions& options = {});
};

struct AMSGradOptions {
    double alpha = 0.001, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, eta = 1.0;
};
// Adam with amsgrad = true.
class AMSGrad : public Adam {
public:
    explicit AMSGrad(const AMSGradOptions& options = {});
};

// AdaBound's and AMSBound's arguments, in Chainer's order.
struct AdaBoundOptions {
    double alpha = 0.001, beta1 = 0.9, beta2 = 0.999, final_lr = 0.1, gamma = 1e-3, eps = 1e-8, eta = 1.0;
};
// Adam with adabound = true.
class AdaBound : public Adam {
public:
    explicit AdaBound(const AdaBoundOptions& options = {});
};
// Adam with amsgrad = true and adabound = true.
class AMSBound : public Adam {
public:
    explicit AMSBound(const AdaBoundOptions& options = {});
};

}  // namespace rensa::optimizers
