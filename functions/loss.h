#pragma once
// Chainer's loss functions (F::...). See functions/functions.h for the family list.

#include "autograd/variable.h"
#include "functions/loss/cross_entropy.h"  // IWYU pragma: export

namespace rensa::functions {}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
