#include "training/triggers/best_value_trigger.h"

#include <sstream>

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::training::triggers {

namespace {

std::string joined_keys(const std::map<std::string, double>& stats) {
    std::ostringstream out;
    out << "[";
    for (auto it = stats.begin(); it != stats.end(); ++it) out << (it == stats.begin() ? "" : ", ") << it->first;
    out << "]";
    return out.str();
}

}  // namespace

BestValueTrigger::BestValueTrigger(std::string key, Compare compare, TriggerArg trigger)
    : key_{std::move(key)},
      compare_{std::move(compare)},
      interval_trigger_{trigger.empty() ? TriggerArg{1, "epoch"}.get() : trigger.get()} {}

bool BestValueTrigger::operator()(Trainer& trainer) {
    if (const auto it = trainer.observation.find(key_); it != trainer.observation.end()) {
        summary_.add(Observation{{key_, it->second}});
    }
    if (!(*interval_trigger_)(trainer)) return false;
    const std::map<std::string, double> stats = summary_.compute_mean();
    const auto found = stats.find(key_);
    RENSA_CHECK(found != stats.end(), KeyError, "BestValueTrigger: key '", key_,
                "' not found in the observation (current available keys are ", joined_keys(stats), ")");
    const double value = found->second;
    summary_ = DictSummary{};
    if (!best_value_ || compare_(*best_value_, value)) {
        best_value_ = value;
        return true;
    }
    return false;
}

void BestValueTrigger::serialize(const serializers::Serializer& serializer) {
    interval_trigger_->serialize(serializer["interval_trigger"]);
    summary_.serialize(serializer["summary"]);
    if (!serializer.is_loading()) {
        // Chainer saves its None as numpy's None marker.
        const Array value = best_value_ ? Array::from_vector<double>({*best_value_}, Shape{}) : Array{};
        serializer.backend().save(serializer.key("best_value"), value);
        return;
    }
    const std::optional<Array> stored =
        serializer.backend().load(serializer.key("best_value"), Dtype::kFloat64, std::nullopt);
    if (!stored) return;  // absent and allowed: keep the current value
    std::optional<double> loaded;
    if (stored->defined()) {
        RENSA_CHECK(stored->size() == 1, DimensionError, "BestValueTrigger.serialize: '", serializer.key("best_value"),
                    "' must hold one value, got shape ", stored->shape());
        loaded = stored->item<double>();
    }
    serializer.backend().defer([this, loaded] { best_value_ = loaded; });
}

MinValueTrigger::MinValueTrigger(std::string key, TriggerArg trigger)
    : BestValueTrigger{std::move(key), [](double best, double value) { return best > value; }, std::move(trigger)} {}

MaxValueTrigger::MaxValueTrigger(std::string key, TriggerArg trigger)
    : BestValueTrigger{std::move(key), [](double best, double value) { return best < value; }, std::move(trigger)} {}

}  // namespace rensa::training::triggers
