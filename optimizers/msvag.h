#pragma once
// MSVAG (chainer.optimizers.MSVAG), M-SVAG of Balles & Hennig ("Dissecting Adam") with
// decoupled weight decay: m and v are running means of grad and grad^2 (rate beta),
// bias-corrected to mt and vt; the step lr * mt is scaled by the variance-adapted
// factor mt^2 / (mt^2 + rho * s), s = (vt - mt^2) / (1 - rho) (0 where undefined);
//   param -= eta * (lr * mt * factor + weight_decay_rate * param)

#include <memory>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

// Chainer's constructor arguments and defaults.
struct MSVAGOptions {
    double lr = 0.1;
    double beta = 0.9;
    double eta = 1.0;
    double weight_decay_rate = 0.0;
};

// Hyperparameters: lr, beta, eta, weight_decay_rate. State: m, v. Chainer's beta_power
// attribute is beta^t here, so it survives serialization with t.
class MSVAGRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults.
    explicit MSVAGRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;
};

class MSVAG : public GradientMethod {
public:
    explicit MSVAG(const MSVAGOptions& options = {});
    double lr() const { return hyperparam().get("lr"); }
    void set_lr(double value) { hyperparam().set("lr", value); }
    double beta() const { return hyperparam().get("beta"); }
    void set_beta(double value) { hyperparam().set("beta", value); }
    double eta() const { return hyperparam().get("eta"); }
    void set_eta(double value) { hyperparam().set("eta", value); }
    double weight_decay_rate() const { return hyperparam().get("weight_decay_rate"); }
    void set_weight_decay_rate(double value) { hyperparam().set("weight_decay_rate", value); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

}  // namespace rensa::optimizers
