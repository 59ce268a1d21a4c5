#include "training/extensions/micro_average.h"

#include <utility>

#include "core/array.h"
#include "core/error.h"
#include "core/reporter.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

double scalar_of(const Array& value, const std::string& key) {
    RENSA_CHECK(value.defined() && value.size() == 1, ValueError, "MicroAverage: the observation '", key,
                "' must hold one number (got ", value.defined() ? value.size() : 0, " elements)");
    return value.to_vector<double>()[0];
}

}  // namespace

MicroAverage::MicroAverage(std::string numerator_key, std::string denominator_key, std::string result_key,
                           TriggerArg trigger)
    : numerator_key_{std::move(numerator_key)},
      denominator_key_{std::move(denominator_key)},
      result_key_{std::move(result_key)},
      trigger_{trigger.empty() ? TriggerArg{1, "epoch"}.get() : trigger.get()} {}

void MicroAverage::operator()(Trainer& trainer) {
    const Observation& observation = trainer.observation;
    const auto numerator = observation.find(numerator_key_);
    const auto denominator = observation.find(denominator_key_);
    if (numerator == observation.end() || denominator == observation.end()) return;
    const double n = scalar_of(numerator->second, numerator_key_);  // both checked before either is added
    const double d = scalar_of(denominator->second, denominator_key_);
    numerator_ += n;
    denominator_ += d;
    if (!(*trigger_)(trainer)) return;

    const double result = numerator_ / denominator_;
    numerator_ = denominator_ = 0.0;
    const Array value = Array::from_vector<double>({result}, Shape{}, Device::native());
    // Chainer reports through the current reporter, whose observation is the trainer's
    // during the loop; without one the value goes straight into the trainer's observation.
    if (Reporter* reporter = get_current_reporter(); reporter != nullptr && reporter->observation() != nullptr) {
        reporter->report({{result_key_, value}});
    } else {
        trainer.observation[result_key_] = value;
    }
}

void MicroAverage::serialize(const serializers::Serializer& serializer) {
    serializer("_numerator", numerator_);
    serializer("_denominator", denominator_);
}

}  // namespace rensa::training::extensions
