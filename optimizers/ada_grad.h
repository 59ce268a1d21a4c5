#pragma once
// AdaGrad (chainer.optimizers.AdaGrad): h += grad^2; param -= lr * grad / (sqrt(h) + eps).

#include <memory>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

// Chainer's constructor arguments and defaults.
struct AdaGradOptions {
    double lr = 0.001;
    double eps = 1e-8;
};

// Hyperparameters: lr, eps. State: h.
class AdaGradRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults.
    explicit AdaGradRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;
};

class AdaGrad : public GradientMethod {
public:
    explicit AdaGrad(const AdaGradOptions& options = {});
    double lr() const { return hyperparam().get("lr"); }
    void set_lr(double value) { hyperparam().set("lr", value); }
    double eps() const { return hyperparam().get("eps"); }
    void set_eps(double value) { hyperparam().set("eps", value); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

}  // namespace rensa::optimizers
