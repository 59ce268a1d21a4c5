#pragma once
// chainer.training.triggers.EarlyStoppingTrigger: a stop trigger that ends training when
// the monitored value has not improved for `patience` checks, or when max_trigger fires.

#include <cstdint>
#include <memory>
#include <string>

#include "training/summary.h"
#include "training/trigger.h"

namespace rensa::training::triggers {

struct EarlyStoppingOptions {
    TriggerArg check_trigger = {1, "epoch"};  // how often the mean is compared
    std::string monitor = "main/loss";
    int64_t patience = 3;                     // checks without improvement before stopping
    std::string mode = "auto";                // "min", "max", or "auto": max when monitor contains "accuracy"
    bool verbose = false;                     // prints the operator and the stop epoch to stdout
    TriggerArg max_trigger = {100, "epoch"};  // stops anyway when this fires
};

class EarlyStoppingTrigger final : public Trigger {
public:
    // ValueError for a mode other than "auto" / "min" / "max" or patience < 0.
    explicit EarlyStoppingTrigger(EarlyStoppingOptions options = {});
    [[nodiscard]] static std::shared_ptr<EarlyStoppingTrigger> make(EarlyStoppingOptions options = {}) {
        return std::make_shared<EarlyStoppingTrigger>(std::move(options));
    }

    // True when max_trigger fires, or at a check where the value did not improve for the
    // patience-th time in a row. A check without the monitored key in this iteration's
    // observation is skipped (Chainer warns).
    bool operator()(Trainer& trainer) override;
    // The max_trigger's length (what ProgressBar shows).
    std::optional<std::pair<int64_t, std::string>> get_training_length() const override;
    // Chainer's trigger has no state to save; rensa saves "max_trigger/...",
    // "interval_trigger/...", "summary/...", "best" and "count" so a resumed run neither
    // restarts the patience count nor re-fires max_trigger.
    void serialize(const serializers::Serializer& serializer) override;

    double best() const { return best_; }
    int64_t count() const { return count_; }
    int64_t patience() const { return patience_; }

private:
    bool improved(double value) const { return greater_ ? value > best_ : value < best_; }

    std::string monitor_;
    int64_t patience_;
    bool verbose_;
    bool greater_;
    TriggerPtr max_trigger_;
    TriggerPtr interval_trigger_;
    DictSummary summary_;
    double best_;
    int64_t count_ = 0;
};

}  // namespace rensa::training::triggers
