#pragma once
// RMSprop (chainer.optimizers.RMSprop): ms = alpha * ms + (1 - alpha) * grad^2;
// param -= lr * grad / (sqrt(ms) + eps), or / sqrt(ms + eps) with eps_inside_sqrt.

#include <memory>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

// Chainer's constructor arguments and defaults.
struct RMSpropOptions {
    double lr = 0.01;
    double alpha = 0.99;
    double eps = 1e-8;
    bool eps_inside_sqrt = false;
};

// Hyperparameters: lr, alpha, eps, eps_inside_sqrt (eps_inside_sqrt: 0 or 1). State: ms.
class RMSpropRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults.
    explicit RMSpropRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;
};

class RMSprop : public GradientMethod {
public:
    explicit RMSprop(const RMSpropOptions& options = {});
    double lr() const { return hyperparam().get("lr"); }
    void set_lr(double value) { hyperparam().set("lr", value); }
    double alpha() const { return hyperparam().get("alpha"); }
    void set_alpha(double value) { hyperparam().set("alpha", value); }
    double eps() const { return hyperparam().get("eps"); }
    void set_eps(double value) { hyperparam().set("eps", value); }
    bool eps_inside_sqrt() const { return hyperparam().get("eps_inside_sqrt") != 0.0; }
    void set_eps_inside_sqrt(bool value) { hyperparam().set("eps_inside_sqrt", value ? 1.0 : 0.0); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

}  // namespace rensa::optimizers
