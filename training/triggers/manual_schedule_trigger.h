#pragma once
// chainer.training.triggers.ManualScheduleTrigger: fires at the given iterations or
// epochs (a point p fires on the call where the counter crosses it: previous < p <= now).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "training/trigger.h"

namespace rensa::training::triggers {

class ManualScheduleTrigger final : public Trigger {
public:
    // ValueError for an empty list or a unit other than "iteration" / "epoch". Epoch
    // points may be fractional (0.5 fires half way through the first epoch).
    ManualScheduleTrigger(std::vector<double> points, std::string unit);
    [[nodiscard]] static std::shared_ptr<ManualScheduleTrigger> make(std::vector<double> points, std::string unit) {
        return std::make_shared<ManualScheduleTrigger>(std::move(points), std::move(unit));
    }

    bool operator()(Trainer& trainer) override;
    // True once the last point fired.
    bool finished() const override { return finished_; }
    // "previous_iteration", "previous_epoch_detail", "finished" as Chainer.
    void serialize(const serializers::Serializer& serializer) override;

    const std::vector<double>& points() const { return points_; }
    const std::string& unit() const { return unit_; }

private:
    std::vector<double> points_;
    std::string unit_;
    bool finished_ = false;
    int64_t previous_iteration_ = 0;
    double previous_epoch_detail_ = 0.0;
};

}  // namespace rensa::training::triggers
