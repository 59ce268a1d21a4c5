#include "training/triggers/manual_schedule_trigger.h"

#include <algorithm>

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::training::triggers {

ManualScheduleTrigger::ManualScheduleTrigger(std::vector<double> points, std::string unit)
    : points_{std::move(points)}, unit_{std::move(unit)} {
    RENSA_CHECK(unit_ == "epoch" || unit_ == "iteration", ValueError,
                "ManualScheduleTrigger: unit must be 'epoch' or 'iteration', got '", unit_, "'");
    RENSA_CHECK(!points_.empty(), ValueError, "ManualScheduleTrigger: the list of points is empty");
}

bool ManualScheduleTrigger::operator()(Trainer& trainer) {
    const Updater& updater = trainer.updater();
    double now = 0.0;
    double previous = 0.0;
    if (unit_ == "epoch") {
        now = updater.epoch_detail();
        previous = previous_epoch_detail_ < 0 ? updater.previous_epoch_detail().value_or(0.0) : previous_epoch_detail_;
    } else {
        now = static_cast<double>(updater.iteration());
        previous = previous_iteration_ < 0 ? now - 1 : static_cast<double>(previous_iteration_);
    }
    const bool fire = std::any_of(points_.begin(), points_.end(), [&](double p) { return previous < p && p <= now; });
    if (fire && now >= *std::max_element(points_.begin(), points_.end())) finished_ = true;
    previous_iteration_ = updater.iteration();
    previous_epoch_detail_ = updater.epoch_detail();
    return fire;
}

void ManualScheduleTrigger::serialize(const serializers::Serializer& serializer) {
    serializer("previous_iteration", previous_iteration_);
    serializer("previous_epoch_detail", previous_epoch_detail_);
    serializer("finished", finished_);
}

}  // namespace rensa::training::triggers
