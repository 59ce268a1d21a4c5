#pragma once
// AdaDelta (chainer.optimizers.AdaDelta), Zeiler's ADADELTA: msg = rho * msg + (1 - rho)
// * grad^2; dx = sqrt((msdx + eps) / (msg + eps)) * grad; msdx = rho * msdx + (1 - rho) * dx^2;
// param -= dx.

#include <memory>

#include "core/kernels.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

// Chainer's constructor arguments and defaults.
struct AdaDeltaOptions {
    double rho = 0.95;
    double eps = 1e-6;
};

// Hyperparameters: rho, eps. State: msg, msdx.
class AdaDeltaRule : public UpdateRule {
public:
    // parent: the optimizer's hyperparameters; nullptr: Chainer's defaults.
    explicit AdaDeltaRule(std::shared_ptr<const Hyperparameter> parent = nullptr);
    // The fused update update_core runs (see Note [Fused updates] in optimizers/optimizer.h):
    // this rule's program with its scalars at the current t, on param, grad and `state`.
    [[nodiscard]] FusedUpdateArgs update_args(const Array& param, const Array& grad) const;

protected:
    void init_state(const Array& param) override;
    void update_core(const Array& param, const Array& grad) override;
};

class AdaDelta : public GradientMethod {
public:
    explicit AdaDelta(const AdaDeltaOptions& options = {});
    double rho() const { return hyperparam().get("rho"); }
    void set_rho(double value) { hyperparam().set("rho", value); }
    double eps() const { return hyperparam().get("eps"); }
    void set_eps(double value) { hyperparam().set("eps", value); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override;
};

}  // namespace rensa::optimizers
