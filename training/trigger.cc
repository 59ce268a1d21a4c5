#include "training/trigger.h"

#include "training/triggers/interval_trigger.h"

namespace rensa::training {

TriggerArg::TriggerArg(int64_t period, std::string unit)
    : trigger_{std::make_shared<triggers::IntervalTrigger>(period, std::move(unit))} {}

}  // namespace rensa::training
