#pragma once
// RMSpropGraves (chainer.optimizers.RMSpropGraves), Alex Graves's RMSprop: n and g
// are running means of grad^2 and grad, delta = momentum * delta - lr * grad /
// sqrt(n - g^2 + eps); param += delta.

#include <memory>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

// Chainer's constructor arguments and defaults.
struct RMSpropGravesOptions {
    double lr = 1e-4;
    double alpha = 0.95;
    double momentum = 0.9;
    double eps = 1e-4;
};

// Hyperparameters: lr, alpha, momentum, eps. State: n, g, delta.
class RMSpropGravesRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults.
    explicit RMSpropGravesRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;
};

class RMSpropGraves : public GradientMethod {
public:
    explicit RMSpropGraves(const RMSpropGravesOptions& options = {});
    double lr() const { return hyperparam().get("lr"); }
    void set_lr(double value) { hyperparam().set("lr", value); }
    double alpha() const { return hyperparam().get("alpha"); }
    void set_alpha(double value) { hyperparam().set("alpha", value); }
    double momentum() const { return hyperparam().get("momentum"); }
    void set_momentum(double value) { hyperparam().set("momentum", value); }
    double eps() const { return hyperparam().get("eps"); }
    void set_eps(double value) { hyperparam().set("eps", value); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

}  // namespace rensa::optimizers
