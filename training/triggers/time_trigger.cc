#include "training/triggers/time_trigger.h"

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::training::triggers {

TimeTrigger::TimeTrigger(double period) : period_{period}, next_time_{period} {
    RENSA_CHECK(period > 0, ValueError, "TimeTrigger: period must be positive seconds, got ", period);
}

bool TimeTrigger::operator()(Trainer& trainer) {
    if (next_time_ < trainer.elapsed_time()) {
        next_time_ += period_;
        return true;
    }
    return false;
}

void TimeTrigger::serialize(const serializers::Serializer& serializer) { serializer("next_time", next_time_); }

}  // namespace rensa::training::triggers
