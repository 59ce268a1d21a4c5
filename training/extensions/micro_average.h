#pragma once
// chainer.training.extensions.MicroAverage: sums a numerator and a denominator reported
// in each iteration (e.g. "main/correct" and "main/total") and, when its own trigger
// fires, reports sum(numerators) / sum(denominators) under result_key.
//
//   trainer.extend(std::make_shared<extensions::MicroAverage>("main/correct", "main/total", "main/accuracy"));

#include <string>

#include "training/extension.h"

namespace rensa::training::extensions {

class MicroAverage : public Extension {
public:
    // `trigger`: when the ratio is computed and reported (the sums then restart); distinct
    // from the extension's own trigger ({1, "iteration"}).
    MicroAverage(std::string numerator_key, std::string denominator_key, std::string result_key,
                 TriggerArg trigger = {1, "epoch"});

    // Adds the two observed values (each a number or a one-element array; ValueError
    // otherwise) when both are present; on the trigger reports the ratio (a 0-d float64)
    // to the trainer's current observation and resets the sums.
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "MicroAverage"; }
    int priority() const override { return kPriorityEditor; }
    // "_numerator" and "_denominator" as Chainer.
    void serialize(const serializers::Serializer& serializer) override;

    double numerator() const { return numerator_; }
    double denominator() const { return denominator_; }

private:
    std::string numerator_key_, denominator_key_, result_key_;
    TriggerPtr trigger_;
    double numerator_ = 0.0, denominator_ = 0.0;
};

}  // namespace rensa::training::extensions
