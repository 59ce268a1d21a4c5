#pragma once
// Chainer's activation functions (F::relu, F::softmax, F::lstm, ...). Inputs are
// floating-point Variables; results keep the input's dtype and shape unless stated.

#include "autograd/variable.h"

namespace rensa::functions {

// max(x, 0). Double-differentiable.
[[nodiscard]] Variable relu(const Variable& x);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
