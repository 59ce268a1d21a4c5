#pragma once
// Umbrella header: the optimizer base classes, every optimizer and the optimizer hooks
// (chainer.optimizers and chainer.optimizer_hooks).

#include "optimizers/ada_delta.h"               // IWYU pragma: export
#include "optimizers/ada_grad.h"                // IWYU pragma: export
#include "optimizers/adam.h"                    // IWYU pragma: export
#include "optimizers/corrected_momentum_sgd.h"  // IWYU pragma: export
#include "optimizers/hooks.h"                   // IWYU pragma: export
#include "optimizers/momentum_sgd.h"            // IWYU pragma: export
#include "optimizers/msvag.h"                   // IWYU pragma: export
#include "optimizers/nesterov_ag.h"             // IWYU pragma: export
#include "optimizers/optimizer.h"               // IWYU pragma: export
#include "optimizers/rmsprop.h"                 // IWYU pragma: export
#include "optimizers/rmsprop_graves.h"          // IWYU pragma: export
#include "optimizers/sgd.h"                     // IWYU pragma: export
#include "optimizers/smorms3.h"                 // IWYU pragma: export
