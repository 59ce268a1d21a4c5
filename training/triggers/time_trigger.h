#pragma once
// chainer.training.triggers.TimeTrigger: fires once each time the trainer's elapsed time
// passes another `period` seconds.

#include <memory>

#include "training/trigger.h"

namespace rensa::training::triggers {

class TimeTrigger final : public Trigger {
public:
    // ValueError for period <= 0.
    explicit TimeTrigger(double period);
    [[nodiscard]] static std::shared_ptr<TimeTrigger> make(double period) {
        return std::make_shared<TimeTrigger>(period);
    }

    // Fires when elapsed_time exceeds the next due time, then moves it one period on (at
    // most one fire per call, as Chainer).
    bool operator()(Trainer& trainer) override;
    // "next_time" as Chainer.
    void serialize(const serializers::Serializer& serializer) override;

    double period() const { return period_; }

private:
    double period_;
    double next_time_;
};

}  // namespace rensa::training::triggers
