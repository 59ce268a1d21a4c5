#include "training/triggers/early_stopping_trigger.h"

#include <iostream>
#include <limits>

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::training::triggers {

namespace {

TriggerPtr trigger_or(const TriggerArg& arg, int64_t period, const std::string& unit) {
    return arg.empty() ? TriggerArg{period, unit}.get() : arg.get();
}

}  // namespace

EarlyStoppingTrigger::EarlyStoppingTrigger(EarlyStoppingOptions options)
    : monitor_{std::move(options.monitor)},
      patience_{options.patience},
      verbose_{options.verbose},
      max_trigger_{trigger_or(options.max_trigger, 100, "epoch")},
      interval_trigger_{trigger_or(options.check_trigger, 1, "epoch")} {
    RENSA_CHECK(options.mode == "auto" || options.mode == "min" || options.mode == "max", ValueError,
                "EarlyStoppingTrigger: mode must be 'auto', 'min' or 'max', got '", options.mode, "'");
    RENSA_CHECK(patience_ >= 0, ValueError, "EarlyStoppingTrigger: patience must be >= 0, got ", patience_);
    greater_ = options.mode == "max" || (options.mode == "auto" && monitor_.find("accuracy") != std::string::npos);
    best_ = greater_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (verbose_) std::cout << "early stopping: operator is " << (greater_ ? "greater" : "less") << std::endl;
}

bool EarlyStoppingTrigger::operator()(Trainer& trainer) {
    const auto it = trainer.observation.find(monitor_);
    const bool observed = it != trainer.observation.end();
    if (observed) summary_.add(Observation{{monitor_, it->second}});
    if ((*max_trigger_)(trainer)) return true;
    if (!(*interval_trigger_)(trainer)) return false;
    if (!observed) return false;  // Chainer warns "<monitor> is not in observation"

    const std::map<std::string, double> stats = summary_.compute_mean();
    summary_ = DictSummary{};
    const auto found = stats.find(monitor_);
    if (found == stats.end()) return false;  // only non-scalar values were reported
    if (improved(found->second)) {
        best_ = found->second;
        count_ = 0;
    } else {
        ++count_;
    }
    if (count_ < patience_) return false;
    if (verbose_) std::cout << "Epoch " << trainer.updater().epoch() << ": early stopping" << std::endl;
    return true;
}

std::optional<std::pair<int64_t, std::string>> EarlyStoppingTrigger::get_training_length() const {
    return max_trigger_->get_training_length();
}

void EarlyStoppingTrigger::serialize(const serializers::Serializer& serializer) {
    max_trigger_->serialize(serializer["max_trigger"]);
    interval_trigger_->serialize(serializer["interval_trigger"]);
    summary_.serialize(serializer["summary"]);
    serializer("best", best_);
    serializer("count", count_);
}

}  // namespace rensa::training::triggers
