// Optimizer and GradientMethod (chainer.Optimizer, chainer.GradientMethod).
//
// Note [Dynamic loss scaling]: Chainer 7's rules. loss_scaling() starts the scale at 1.
// After each update: a step whose grads hold Inf/NaN halves the scale (the parameters are
// not updated, but the hooks run and t counts, as in Chainer); a clean step doubles it
// until the first overflow ever, and multiplies it by 2^(1/interval) after that, so
// `interval` clean steps double it. The scale stays within [1, 65504] (float16's maximum).
// clean_steps_ counts the clean steps since the last overflow; it is -1 until the first
// overflow (Chainer's _loss_scaling_isnan_ever == False).
//
// Differences from Chainer, on purpose: setup() keeps the hooks and the loss scaling
// configuration (Chainer drops them, and refuses add_hook before setup); a static
// loss_scaling(scale=s) turns dynamic scaling off; a duplicate hook name is a ValueError.

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/fused_update.h"
#include "core/ops/reduction.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

namespace {

constexpr double kLossScaleMax = 65504.0;  // the largest float16

// Chainer's GradientMethod.reallocate_cleared_grads: zeros for every initialised parameter
// whose grad is None, so hooks and rules see a grad for each parameter.
void reallocate_cleared_grads(const links::Link& target) {
    for (const links::Parameter& param : target.params(/*include_uninit=*/false)) {
        if (!param.grad().defined()) param.set_grad(ops::zeros_like(param.array()));
    }
}

}  // namespace

Optimizer::Optimizer() : hyperparam_{std::make_shared<Hyperparameter>()} {}

Optimizer& Optimizer::setup(std::shared_ptr<links::Link> link) {
    RENSA_CHECK(link != nullptr, ValueError, "Optimizer.setup: the target link is null");
    target_ = std::move(link);
    t = 0;
    epoch = 0;
    return *this;
}

links::Link& Optimizer::target() const {
    RENSA_CHECK(target_ != nullptr, ValueError, "Optimizer: no target link; call setup(link) first");
    return *target_;
}

void Optimizer::new_epoch() { ++epoch; }

void Optimizer::add_hook(std::shared_ptr<OptimizerHook> hook, std::string name, HookTiming timing) {
    RENSA_CHECK(hook != nullptr, ValueError, "Optimizer.add_hook: the hook is null");
    if (name.empty()) name = hook->name();
    RENSA_CHECK(!name.empty(), ValueError, "Optimizer.add_hook: the name of the hook is not specified");
    for (const HookEntry& entry : hooks_) {
        RENSA_CHECK(entry.name != name, ValueError, "Optimizer.add_hook: hook \"", name, "\" already exists");
    }
    if (timing == HookTiming::kAuto) timing = hook->timing();
    if (timing == HookTiming::kAuto) timing = HookTiming::kPre;  // Chainer's default for a hook without timing
    hooks_.push_back({std::move(name), std::move(hook), timing});
}

void Optimizer::remove_hook(const std::string& name) {
    const auto it = std::find_if(hooks_.begin(), hooks_.end(), [&](const HookEntry& e) { return e.name == name; });
    RENSA_CHECK(it != hooks_.end(), KeyError, "Optimizer.remove_hook: no hook named \"", name, "\"");
    hooks_.erase(it);
}

void Optimizer::call_hooks(HookTiming timing) {
    RENSA_CHECK(timing != HookTiming::kAuto, ValueError, "Optimizer.call_hooks: timing must be kPre or kPost");
    NoBackpropMode no_graph;
    // A copy: a hook may add or remove hooks.
    const std::vector<HookEntry> hooks = hooks_;
    for (const HookEntry& entry : hooks) {
        if (entry.timing != timing) continue;
        (*entry.hook)(*this);  // per-parameter hooks loop in OptimizerHook::operator()(Optimizer&)
        reallocate_cleared_grads(target());
    }
}

void Optimizer::loss_scaling(int64_t interval, std::optional<double> scale) {
    if (!scale) {
        RENSA_CHECK(interval >= 1, ValueError, "Optimizer.loss_scaling: interval must be >= 1, got ", interval);
        dynamic_loss_scale_ = true;
        loss_scaling_interval_ = interval;
        loss_scale_ = 1.0;
        clean_steps_ = -1;
    } else {
        RENSA_CHECK(*scale > 0, ValueError, "Optimizer.loss_scaling: scale must be positive, got ", *scale);
        dynamic_loss_scale_ = false;
        loss_scale_ = scale;
    }
}

bool Optimizer::grads_have_overflow() const {
    for (const links::Parameter& param : target().params(/*include_uninit=*/false)) {
        const Array grad = param.grad();
        if (grad.defined() && !ops::all(ops::isfinite(grad)).item<bool>()) return true;
    }
    return false;
}

// See Note [Dynamic loss scaling].
bool Optimizer::check_loss_scale() {
    if (!dynamic_loss_scale_ || !loss_scale_) return true;
    const bool overflow = grads_have_overflow();
    double multiplier = 2.0;
    if (overflow) {
        multiplier = 0.5;
        clean_steps_ = 0;
    } else if (clean_steps_ >= 0) {
        multiplier = std::pow(2.0, 1.0 / static_cast<double>(loss_scaling_interval_));
        ++clean_steps_;
    }
    loss_scale_ = std::clamp(*loss_scale_ * multiplier, 1.0, kLossScaleMax);
    return !overflow;
}

void Optimizer::backward_loss(const Variable& loss) {
    target().cleargrads();
    loss.backward({.loss_scale = loss_scale_});
}

// Chainer's Optimizer.serialize: "t", "epoch", then each rule under its parameter's path
// without the leading '/' (Chainer's keys: "l1/W/m" under the optimizer's node).
void Optimizer::serialize(const serializers::Serializer& serializer) {
    serializer("t", t);
    serializer("epoch", epoch);
    for (const auto& [name, param] : target().namedparams()) {
        links::ParameterUpdateRule* rule = param.update_rule();
        if (rule == nullptr) continue;
        const size_t start = std::min(name.find_first_not_of('/'), name.size());
        rule->serialize(serializer[std::string_view(name).substr(start)]);
    }
}

// Note [Automatic fp32 update]: Chainer's mixed16 users call optimizer.use_fp32_update()
// themselves; forgetting it trains a 16-bit model whose small updates round away (see
// Note [Float32 master weights] in optimizers/update_rule.cc), a silent loss of accuracy
// that mixed16 and mixed_bf16 exist to avoid. So an optimizer set up while config().mixed16
// is on (in the thread that calls setup) turns use_fp32_update on for its rules; it acts on
// 16-bit parameters only, float32 ones (normalisation links) are updated as they are.
// An explicit use_fp32_update(flag), before or after setup, always wins.
Optimizer& GradientMethod::setup(std::shared_ptr<links::Link> link) {
    Optimizer::setup(std::move(link));
    const bool fp32_update = use_fp32_update_.value_or(config().mixed16);  // Note [Automatic fp32 update]
    for (const links::Parameter& param : target().params()) {
        std::shared_ptr<UpdateRule> rule = create_update_rule();
        RENSA_CHECK(rule != nullptr, ValueError, "GradientMethod.setup: create_update_rule returned null");
        rule->use_fp32_update = fp32_update;
        param.set_update_rule(std::move(rule));
    }
    return *this;
}

// Chainer 7's GradientMethod.update. See Note [Dynamic loss scaling] for the skipped step.
void GradientMethod::update() {
    NoBackpropMode no_graph;
    links::Link& link = target();
    reallocate_cleared_grads(link);
    const bool safe = check_loss_scale();
    call_hooks(HookTiming::kPre);
    ++t;
    if (safe) {
        // Every rule's ops::fused_update joins one batch, run when it ends: one pass per parameter
        // on the CPU, a few launches on a GPU. See Note [Fused updates] in optimizers/optimizer.h.
        ops::FusedUpdateBatch batch;
        for (const links::Parameter& param : link.params()) param.update();
    }
    reallocate_cleared_grads(link);
    call_hooks(HookTiming::kPost);
}

void GradientMethod::use_fp32_update(bool flag) {
    use_fp32_update_ = flag;
    if (target_ == nullptr) return;
    for (const links::Parameter& param : target_->params()) {
        if (auto* rule = dynamic_cast<UpdateRule*>(param.update_rule())) rule->use_fp32_update = flag;
    }
}

}  // namespace rensa::optimizers
