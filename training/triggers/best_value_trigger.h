#pragma once
// chainer.training.triggers.BestValueTrigger, MinValueTrigger and MaxValueTrigger: fire
// when the mean of a reported value since the last check is the best seen so far.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "training/summary.h"
#include "training/trigger.h"

namespace rensa::training::triggers {

class BestValueTrigger : public Trigger {
public:
    // compare(best, value): true when `value` is better than `best`.
    using Compare = std::function<bool(double best, double value)>;
    // Accumulates `key` from each iteration's observation; when `trigger` fires, compares
    // the mean with the best so far. An empty trigger means {1, "epoch"}.
    BestValueTrigger(std::string key, Compare compare, TriggerArg trigger = {1, "epoch"});

    // Throws KeyError naming the key and the keys summarized when the check trigger fires
    // and `key` was never reported since the last check.
    bool operator()(Trainer& trainer) override;
    // "interval_trigger/...", "summary/..." and "best_value" (None before the first check).
    void serialize(const serializers::Serializer& serializer) override;

    const std::string& key() const { return key_; }
    std::optional<double> best_value() const { return best_value_; }

private:
    std::string key_;
    Compare compare_;
    TriggerPtr interval_trigger_;
    DictSummary summary_;
    std::optional<double> best_value_;
};

// Fires when the mean of `key` is the smallest so far (a validation loss).
class MinValueTrigger final : public BestValueTrigger {
public:
    explicit MinValueTrigger(std::string key, TriggerArg trigger = {1, "epoch"});
    [[nodiscard]] static std::shared_ptr<MinValueTrigger> make(std::string key, TriggerArg trigger = {1, "epoch"}) {
        return std::make_shared<MinValueTrigger>(std::move(key), std::move(trigger));
    }
};

// Fires when the mean of `key` is the largest so far (a validation accuracy).
class MaxValueTrigger final : public BestValueTrigger {
public:
    explicit MaxValueTrigger(std::string key, TriggerArg trigger = {1, "epoch"});
    [[nodiscard]] static std::shared_ptr<MaxValueTrigger> make(std::string key, TriggerArg trigger = {1, "epoch"}) {
        return std::make_shared<MaxValueTrigger>(std::move(key), std::move(trigger));
    }
};

}  // namespace rensa::training::triggers
