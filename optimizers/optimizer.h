#pragma once
// Optimizer, GradientMethod and UpdateRule (chainer.Optimizer & co.).
//
// Note [Hyperparameter fallback]: an optimizer owns a Hyperparameter (name -> value);
// each UpdateRule's Hyperparameter has the optimizer's as parent and answers with its
// own value when one was set, else the parent's. So optimizer.hyperparam().set("lr", x)
// (what LR-shift extensions do) reaches every rule that did not override lr.
//
// Note [Fused updates]: a rule's update_core changes the parameter and its state in one
// pass over the elements, not a chain of small array ops, through a primitive that knows no
// rule: ops::fused_update runs an UpdateProgram (Note [Update programs] in core/kernels.h),
// a short list of elementwise instructions over the registers param, grad, up to three
// states and temporaries, with per-step scalars. Each optimizer owns its vocabulary in its
// own files (optimizers/<name>.h/.cc): its state keys (init_state, and the program's state
// names for error messages), its formula (the program, built once), and the scalars it
// computes per step (lr, Adam's alpha_t and bounds, MSVAG's bias corrections: update_args).
// The instructions round like the C++ expression each spells, in the order the formula
// reads, so a program gives the bits of the hand-written loop. A new optimizer touches 4
// files: its .h and .cc, the umbrella optimizers/optimizers.h, and its test (Python adds its
// binding); core, cuda and the backends stay as they are. tests/optimizers/test_custom_rule.cc
// defines a whole rule inside the test file.
// GradientMethod::update opens an ops::FusedUpdateBatch around the loop over parameters:
// every rule's update is queued and runs with the others as one fused_update_multi when
// the loop ends (one pass per parameter on the CPU, a few multi-tensor launches on a GPU).
// No rule or hook flushes by hand: reading or writing an array a queued update touches
// runs the queue first (Note [Batched fused updates] in core/ops/fused_update.h).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "links/link.h"
#include "serializers/serializer.h"

namespace rensa::optimizers {

class Hyperparameter {
public:
    explicit Hyperparameter(std::shared_ptr<const Hyperparameter> parent = nullptr) : parent_{std::move(parent)} {}
    // Own value, else the parent's; KeyError naming the hyperparameter when neither has it.
    double get(const std::string& name) const;
    bool has(const std::string& name) const;
    void set(const std::string& name, double value) { values_[name] = value; }
    // Every name visible here (own and inherited) with its value.
    std::map<std::string, double> get_all() const;
    const std::shared_ptr<const Hyperparameter>& parent() const { return parent_; }

private:
    std::shared_ptr<const Hyperparameter> parent_;
    std::map<std::string, double> values_;
};

class UpdateRule;
class Optimizer;

enum class HookTiming { kAuto, kPre, kPost };

// Chainer's optimizer hooks. A hook either looks at the whole optimizer (GradientClipping
// needs the global norm) or, when call_for_each_param() is true, at one rule and its
// parameter at a time (WeightDecay, Lasso, ...).
class OptimizerHook {
public:
    virtual ~OptimizerHook() = default;
    virtual std::string name() const = 0;
    // kPre: before the update (on the grads); kPost: after it.
    virtual HookTiming timing() const { return HookTiming::kPre; }
    virtual bool call_for_each_param() const { return false; }
    virtual void operator()(Optimizer& optimizer);
    virtual void operator()(UpdateRule& rule, const links::Parameter& param);
};

class UpdateRule : public links::ParameterUpdateRule {
public:
    explicit UpdateRule(std::shared_ptr<const Hyperparameter> parent);

    // Chainer's UpdateRule.update: nothing when disabled or the grad is None; else undoes
    // the loss scale, runs the rule's hooks, creates the state on first use (init_state),
    // runs update_core (on a float32 master copy for float16 parameters when
    // use_fp32_update), and counts t. Runs under NoBackpropMode.
    void update(const links::Parameter& param) override;
    // "t" and every state array under its name (Chainer's keys: m, v, v_hat, ...).
    void serialize(const serializers::Serializer& serializer) override;

    Hyperparameter& hyperparam() { return *hyperparam_; }
    const Hyperparameter& hyperparam() const { return *hyperparam_; }
    int64_t t = 0;
    // State arrays by name; empty until the first update (or a load).
    std::map<std::string, Array> state;
    // float16 parameters are updated through a float32 copy ("master" weights).
    bool use_fp32_update = false;

    void add_hook(std::shared_ptr<OptimizerHook> hook, std::string name = {}, HookTiming timing = HookTiming::kAuto);
    void remove_hook(const std::string& name);

protected:
    // Creates `state` for `param` (zeros like the array, ...). Called once, before the
    // first update_core, with the array update_core will receive.
    virtual void init_state(const Array& param) = 0;
    // One step on `param` (updated in place) from `grad` (same shape and dtype), using
    // hyperparam() and `state`. Under GradientMethod::update, ops::fused_update only queues
    // the update; reading param or its state afterwards runs it first (Note [Fused updates]).
    virtual void update_core(const Array& param, const Array& grad) = 0;

private:
    std::shared_ptr<Hyperparameter> hyperparam_;
    std::vector<std::pair<std::string, std::shared_ptr<OptimizerHook>>> pre_hooks_, post_hooks_;
    Array master_;  // float32 copy of a float16 parameter (use_fp32_update)
};

class Optimizer {
public:
    Optimizer();
    virtual ~Optimizer() = default;
    Optimizer(const Optimizer&) = delete;
    Optimizer& operator=(const Optimizer&) = delete;

    // Makes `link` the target (kept alive by the optimizer) and resets t and epoch.
    virtual Optimizer& setup(std::shared_ptr<links::Link> link);
    // The target; ValueError before setup.
    links::Link& target() const;
    const std::shared_ptr<links::Link>& target_ptr() const { return target_; }

    // The optimizer that owns the update rules: this one, or the one a decorator (the
    // multi-node optimizer) wraps. What extensions inspect (observe_lr reads Adam's lr).
    virtual const Optimizer& actual_optimizer() const { return *this; }

    // One update from the grads already in the target.
    virtual void update() = 0;
    // Chainer's update(lossfun, *args): loss = lossfun(args...), cleargrads, backward (with
    // the loss scale), update().
    template <class F, class... Args>
    void update(F&& lossfun, Args&&... args) {
        const Variable loss = std::invoke(std::forward<F>(lossfun), std::forward<Args>(args)...);
        backward_loss(loss);
        update();
    }

    int64_t t = 0;
    int64_t epoch = 0;
    // Counts an epoch and runs the hooks' epoch handling (Chainer's new_epoch). Virtual so
    // a decorator (distributed::MultiNodeOptimizer) forwards it to the optimizer it wraps.
    virtual void new_epoch();

    Hyperparameter& hyperparam() { return *hyperparam_; }
    const Hyperparameter& hyperparam() const { return *hyperparam_; }
    std::shared_ptr<const Hyperparameter> hyperparam_ptr() const { return hyperparam_; }

    // Hooks run in the order added; `name` defaults to hook->name(); timing kAuto means the
    // hook's own. ValueError for a duplicate name.
    virtual void add_hook(std::shared_ptr<OptimizerHook> hook, std::string name = {},
                          HookTiming timing = HookTiming::kAuto);
    virtual void remove_hook(const std::string& name);
    // Runs the hooks of one timing (Chainer's call_hooks).
    void call_hooks(HookTiming timing);

    // Loss scaling (Chainer's loss_scaling): the loss is multiplied by the scale before
    // backward and the rules divide it out. scale=nullopt is dynamic: see Note [Dynamic loss
    // scaling] in optimizer.cc (a step whose grads hold Inf/NaN is skipped and halves the
    // scale); a given scale is static.
    virtual void loss_scaling(int64_t interval = 1000, std::optional<double> scale = std::nullopt);
    virtual std::optional<double> loss_scale() const { return loss_scale_; }
    // True when the grads of the target hold Inf or NaN (what loss scaling checks).
    bool grads_have_overflow() const;

    // "t", "epoch" and each parameter's rule state under the parameter's path
    // ("predictor/l1/W/m"), as Chainer (hyperparameters are not saved).
    virtual void serialize(const serializers::Serializer& serializer);

protected:
    // cleargrads + backward with the loss scale (the part of update(lossfun) before update()).
    // Virtual so a decorator can watch the backward (the multi-node optimizer's overlap).
    virtual void backward_loss(const Variable& loss);
    // For decorators: makes this optimizer's hyperparameters the same object as `inner`'s,
    // so hyperparam().set("lr", x) on the decorator (LR-shift extensions) reaches `inner`.
    void share_state_with(const Optimizer& inner) { hyperparam_ = inner.hyperparam_; }
    // Loss scaling bookkeeping; returns false when this step must be skipped (overflow).
    bool check_loss_scale();

    std::shared_ptr<links::Link> target_;
    std::shared_ptr<Hyperparameter> hyperparam_;

private:
    struct HookEntry {
        std::string name;
        std::shared_ptr<OptimizerHook> hook;
        HookTiming timing;
    };
    std::vector<HookEntry> hooks_;
    std::optional<double> loss_scale_;
    bool dynamic_loss_scale_ = false;
    int64_t loss_scaling_interval_ = 1000;
    int64_t clean_steps_ = 0;
};

// Optimizers that update each parameter with its own UpdateRule.
class GradientMethod : public Optimizer {
public:
    // Also installs a fresh rule on every parameter of the link (create_update_rule).
    Optimizer& setup(std::shared_ptr<links::Link> link) override;
    // Chainer's GradientMethod.update: (loss scaling check), pre hooks, t += 1, every
    // parameter's update(), post hooks.
    void update() override;
    using Optimizer::update;

    // Applied to rules created from now on and to the existing ones. Until it is called,
    // setup chooses (Note [Automatic fp32 update] in optimizers/optimizer.cc).
    void use_fp32_update(bool flag = true);

protected:
    virtual std::shared_ptr<UpdateRule> create_update_rule() = 0;

private:
    std::optional<bool> use_fp32_update_;  // unset: on under config().mixed16 at setup
};

}  // namespace rensa::optimizers
