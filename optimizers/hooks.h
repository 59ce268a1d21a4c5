#pragma once
// Chainer's optimizer hooks (chainer.optimizer_hooks), with Chainer's names, defaults and
// timings. Add them to an optimizer (every parameter, or the whole optimizer) or to one
// parameter's update rule:
//   optimizer.add_hook(std::make_shared<optimizer_hooks::WeightDecay>(1e-4));
//   rule.add_hook(std::make_shared<optimizer_hooks::GradientHardClipping>(-1.0, 1.0));
// Every hook changes the grads in place and runs before the update (kPre) unless added
// with another timing. Parameters without a grad are left alone.

#include <functional>
#include <string>
#include <utility>

#include "core/array.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizer_hooks {

using optimizers::HookTiming;
using optimizers::Optimizer;
using optimizers::OptimizerHook;
using optimizers::UpdateRule;

// grad += rate * param (L2 regularization). At the optimizer level the grads are still
// multiplied by the loss scale, so the rate is too.
class WeightDecay : public OptimizerHook {
public:
    explicit WeightDecay(double rate) : rate{rate} {}
    std::string name() const override { return "WeightDecay"; }
    bool call_for_each_param() const override { return true; }
    using OptimizerHook::operator();
    void operator()(UpdateRule& rule, const links::Parameter& param) override;

    double rate;
};

// grad += rate * sign(param) (L1 regularization); loss scale as for WeightDecay.
class Lasso : public OptimizerHook {
public:
    explicit Lasso(double rate) : rate{rate} {}
    std::string name() const override { return "Lasso"; }
    bool call_for_each_param() const override { return true; }
    using OptimizerHook::operator();
    void operator()(UpdateRule& rule, const links::Parameter& param) override;

    double rate;
};

// Scales every grad of the target by threshold / norm when the L2 norm of all grads
// together exceeds `threshold` (an optimizer-level hook only).
class GradientClipping : public OptimizerHook {
public:
    explicit GradientClipping(double threshold) : threshold{threshold} {}
    std::string name() const override { return "GradientClipping"; }
    using OptimizerHook::operator();
    void operator()(Optimizer& optimizer) override;

    double threshold;
};

// Clips every grad element into [lower_bound, upper_bound].
class GradientHardClipping : public OptimizerHook {
public:
    GradientHardClipping(double lower_bound, double upper_bound) : lower_bound{lower_bound}, upper_bound{upper_bound} {}
    std::string name() const override { return "GradientHardClipping"; }
    bool call_for_each_param() const override { return true; }
    using OptimizerHook::operator();
    void operator()(UpdateRule& rule, const links::Parameter& param) override;

    double lower_bound, upper_bound;
};

class GradientNoise;
// Noise of `shape` and `dtype` on `device` for one parameter (Chainer's noise_func(xp,
// shape, dtype, hook, opt), where opt is the parameter's update rule).
using NoiseFunction = std::function<Array(Device device, const Shape& shape, Dtype dtype, const GradientNoise& hook,
                                          const UpdateRule& rule)>;

// Chainer's default noise: normal with variance eta / (1 + rule.t)^0.55 (Neelakantan et
// al., "Adding Gradient Noise Improves Learning for Very Deep Networks").
[[nodiscard]] Array exponential_decay_noise(Device device, const Shape& shape, Dtype dtype, const GradientNoise& hook,
                                            const UpdateRule& rule);

// grad += noise_func(...), drawn from rensa's global generator.
class GradientNoise : public OptimizerHook {
public:
    explicit GradientNoise(double eta, NoiseFunction noise_func = exponential_decay_noise)
        : eta{eta}, noise_func{std::move(noise_func)} {}
    std::string name() const override { return "GradientNoise"; }
    bool call_for_each_param() const override { return true; }
    using OptimizerHook::operator();
    void operator()(UpdateRule& rule, const links::Parameter& param) override;

    double eta;
    NoiseFunction noise_func;
};

// Layer-wise adaptive rate scaling (You et al., arXiv:1708.03888): for a parameter whose
// norm exceeds `threshold`, grad = (grad + weight_decay * param) * |param| /
// (eps + |grad| + weight_decay * |param|); otherwise grad += weight_decay * param.
class GradientLARS : public OptimizerHook {
public:
    explicit GradientLARS(double threshold = 1e-2, double weight_decay = 0.0, double eps = 1e-9)
        : threshold{threshold}, weight_decay{weight_decay}, eps{eps} {}
    std::string name() const override { return "GradientLARS"; }
    bool call_for_each_param() const override { return true; }
    using OptimizerHook::operator();
    void operator()(UpdateRule& rule, const links::Parameter& param) override;

    double threshold, weight_decay, eps;
};

}  // namespace rensa::optimizer_hooks
