#include "training/triggers/once_trigger.h"

namespace rensa::training::triggers {

bool OnceTrigger::operator()(Trainer& trainer) {
    (void)trainer;
    const bool fire = flag_first_ || flag_resumed_;
    flag_first_ = false;
    flag_resumed_ = false;
    return fire;
}

void OnceTrigger::serialize(const serializers::Serializer& serializer) { serializer("_flag_first", flag_first_); }

}  // namespace rensa::training::triggers
