#pragma once
// Chainer's pooling functions (F::...). See functions/functions.h for the family list.

#include "autograd/variable.h"

namespace rensa::functions {}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
