#pragma once
// Cross-entropy losses (F::softmax_cross_entropy, F::sigmoid_cross_entropy); included by
// functions/loss.h.

#include "autograd/variable.h"

namespace rensa::functions {}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
