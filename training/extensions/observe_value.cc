#include "training/extensions/observe_value.h"

#include <memory>
#include <utility>

#include "core/array.h"
#include "core/error.h"
#include "optimizers/adam.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

class ObserveValue final : public Extension {
public:
    ObserveValue(std::string key, std::function<double(Trainer&)> fn, TriggerArg trigger)
        : key_{std::move(key)}, fn_{std::move(fn)}, trigger_{std::move(trigger)} {}

    void operator()(Trainer& trainer) override {
        const double value = fn_(trainer);
        trainer.observation[key_] = Array::from_vector<double>({value}, Shape{}, Device::native());
    }
    std::string default_name() const override { return "_observe_value"; }
    TriggerArg default_trigger() const override { return trigger_; }
    int priority() const override { return kPriorityWriter; }

private:
    std::string key_;
    std::function<double(Trainer&)> fn_;
    TriggerArg trigger_;
};

// Chainer's optimizer.lr: Adam's is a property computed from alpha and t.
double learning_rate(const optimizers::Optimizer& decorated, const std::string& name) {
    const optimizers::Optimizer& optimizer = decorated.actual_optimizer();
    if (const auto* adam = dynamic_cast<const optimizers::Adam*>(&optimizer)) return adam->lr();
    RENSA_CHECK(optimizer.hyperparam().has("lr"), KeyError, "observe_lr: optimizer '", name,
                "' has no hyperparameter 'lr'");
    return optimizer.hyperparam().get("lr");
}

}  // namespace

ExtensionPtr observe_value(std::string observation_key, std::function<double(Trainer&)> target_func,
                           ObserveValueOptions options) {
    RENSA_CHECK(target_func != nullptr, ValueError, "observe_value: target_func for '", observation_key, "' is empty");
    return std::make_shared<ObserveValue>(std::move(observation_key), std::move(target_func),
                                          std::move(options.trigger));
}

ExtensionPtr observe_lr(std::string optimizer_name, std::string observation_key, ObserveValueOptions options) {
    auto fn = [name = std::move(optimizer_name)](Trainer& trainer) {
        return learning_rate(trainer.updater().get_optimizer(name), name);
    };
    return observe_value(std::move(observation_key), std::move(fn), std::move(options));
}

}  // namespace rensa::training::extensions
