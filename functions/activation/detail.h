#pragma once
// Shared by the activation files (private): constant (non-differentiated) Variables for masks.
// Input checks are autograd/check.h's.

#include "autograd/check.h"
#include "autograd/variable.h"

namespace rensa::functions::activation_detail {

// A Variable that backprop treats as a constant (masks, fixed factors).
inline Variable constant(const Array& a) { return Variable(a, false); }

}  // namespace rensa::functions::activation_detail
