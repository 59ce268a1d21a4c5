#include "training/triggers/interval_trigger.h"

#include <cmath>

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::training::triggers {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

}  // namespace

IntervalTrigger::IntervalTrigger(int64_t period, std::string unit) : period_{period}, unit_{std::move(unit)} {
    RENSA_CHECK(unit_ == "epoch" || unit_ == "iteration", ValueError,
                "IntervalTrigger: unit must be 'epoch' or 'iteration', got '", unit_, "'");
    RENSA_CHECK(period_ >= 1, ValueError, "IntervalTrigger: period must be at least 1, got ", period_);
}

bool IntervalTrigger::operator()(Trainer& trainer) {
    const Updater& updater = trainer.updater();
    bool fire = false;
    if (unit_ == "epoch") {
        const double epoch_detail = updater.epoch_detail();
        double previous = previous_epoch_detail_;
        // A negative value marks an unknown previous state: ask the updater (Chainer).
        if (previous < 0) previous = updater.previous_epoch_detail().value_or(0.0);
        const auto p = static_cast<double>(period_);
        fire = std::floor(previous / p) != std::floor(epoch_detail / p);
    } else {
        const int64_t iteration = updater.iteration();
        const int64_t previous = previous_iteration_ < 0 ? iteration - 1 : previous_iteration_;
        fire = floor_div(previous, period_) != floor_div(iteration, period_);
    }
    previous_iteration_ = updater.iteration();
    previous_epoch_detail_ = updater.epoch_detail();
    return fire;
}

void IntervalTrigger::serialize(const serializers::Serializer& serializer) {
    serializer("previous_iteration", previous_iteration_);
    serializer("previous_epoch_detail", previous_epoch_detail_);
}

}  // namespace rensa::training::triggers
