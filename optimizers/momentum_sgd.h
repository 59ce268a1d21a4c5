#pragma once
// MomentumSGD (chainer.optimizers.MomentumSGD): v = momentum * v - lr * grad;
// param += v.

#include <memory>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

// Chainer's constructor arguments and defaults.
struct MomentumSGDOptions {
    double lr = 0.01;
    double momentum = 0.9;
};

// Hyperparameters: lr, momentum. State: v.
class MomentumSGDRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults.
    explicit MomentumSGDRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;
};

class MomentumSGD : public GradientMethod {
public:
    explicit MomentumSGD(const MomentumSGDOptions& options = {});
    double lr() const { return hyperparam().get("lr"); }
    void set_lr(double value) { hyperparam().set("lr", value); }
    double momentum() const { return hyperparam().get("momentum"); }
    void set_momentum(double value) { hyperparam().set("momentum", value); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

}  // namespace rensa::optimizers
