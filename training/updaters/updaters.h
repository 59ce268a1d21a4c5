#pragma once
// chainer.training.updaters: every updater in one include.

#include "training/updaters/standard_updater.h"  // IWYU pragma: export
