#pragma once
// chainer.training.triggers.IntervalTrigger: fires every `period` iterations or epochs
// (what the {period, unit} form of TriggerArg makes).

#include <cstdint>
#include <string>

#include "training/trigger.h"

namespace rensa::training::triggers {

class IntervalTrigger final : public Trigger {
public:
    // ValueError for period < 1 or a unit other than "iteration" / "epoch".
    IntervalTrigger(int64_t period, std::string unit);
    // Iteration unit: fires when the iteration is a multiple of period. Epoch unit: when
    // the epoch counter (epoch_detail) crossed a multiple of period since the last call.
    bool operator()(Trainer& trainer) override;
    // Chainer's keys: "previous_iteration" and "previous_epoch_detail" (the counters at the
    // last call), so a resumed run neither fires twice nor skips a point.
    void serialize(const serializers::Serializer& serializer) override;
    std::optional<std::pair<int64_t, std::string>> get_training_length() const override { return {{period_, unit_}}; }

    int64_t period() const { return period_; }
    const std::string& unit() const { return unit_; }

private:
    int64_t period_;
    std::string unit_;
    int64_t previous_iteration_ = 0;
    double previous_epoch_detail_ = 0.0;
};

}  // namespace rensa::training::triggers
