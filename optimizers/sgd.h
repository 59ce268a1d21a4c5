#pragma once
// SGD (chainer.optimizers.SGD): param -= lr * grad.

#include <memory>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

struct SGDOptions {
    double lr = 0.01;
};

// Hyperparameter: lr.
class SGDRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults.
    explicit SGDRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;
};

class SGD : public GradientMethod {
public:
    explicit SGD(const SGDOptions& options = {});
    double lr() const { return hyperparam().get("lr"); }
    void set_lr(double value) { hyperparam().set("lr", value); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

}  // namespace rensa::optimizers
