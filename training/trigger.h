#pragma once
// chainer.training triggers: callables that decide, once per iteration, whether an
// extension runs (or, as the stop trigger, whether training ends).

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "serializers/serializer.h"

namespace rensa::training {

class Trainer;

class Trigger {
public:
    virtual ~Trigger() = default;
    // True when the extension should run now. Called once per iteration, after the update.
    virtual bool operator()(Trainer& trainer) = 0;
    // Trigger state (IntervalTrigger's last fire, MinValueTrigger's best value, ...).
    virtual void serialize(const serializers::Serializer& serializer) { (void)serializer; }
    // {period, unit} when the trigger fires at a fixed length ("iteration" or "epoch"):
    // what ProgressBar reads from the stop trigger (Chainer's get_training_length).
    virtual std::optional<std::pair<int64_t, std::string>> get_training_length() const { return std::nullopt; }
    // True when the trigger will never fire again (Chainer's optional `finished`
    // attribute: OnceTrigger, ManualScheduleTrigger); Trainer::run then skips the
    // extension's initialize.
    virtual bool finished() const { return false; }
};

using TriggerPtr = std::shared_ptr<Trigger>;

// A trigger argument the way Chainer takes one: nothing (the default), Chainer's
// (period, unit) tuple as {1, "epoch"}, or a Trigger object.
//   trainer.extend(ext, {.trigger = {1, "epoch"}});
//   trainer.extend(ext, {.trigger = triggers::MinValueTrigger::make("validation/main/loss")});
class TriggerArg {
public:
    TriggerArg() = default;
    TriggerArg(int64_t period, std::string unit);  // ValueError for a unit other than "epoch"/"iteration"
    template <class T>
    requires std::derived_from<T, Trigger> TriggerArg(std::shared_ptr<T> trigger)
        : trigger_{std::move(trigger)} {}  // NOLINT: implicit on purpose
    bool empty() const { return trigger_ == nullptr; }
    // The trigger (an IntervalTrigger for the tuple form); null when empty.
    TriggerPtr get() const { return trigger_; }

private:
    TriggerPtr trigger_;
};

}  // namespace rensa::training
