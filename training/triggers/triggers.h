#pragma once
// chainer.training.triggers: every trigger in one include.

#include "training/triggers/best_value_trigger.h"       // IWYU pragma: export
#include "training/triggers/early_stopping_trigger.h"   // IWYU pragma: export
#include "training/triggers/interval_trigger.h"         // IWYU pragma: export
#include "training/triggers/manual_schedule_trigger.h"  // IWYU pragma: export
#include "training/triggers/once_trigger.h"             // IWYU pragma: export
#include "training/triggers/time_trigger.h"             // IWYU pragma: export
