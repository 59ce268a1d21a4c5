#pragma once
// Shared by the activation files (private): constant (non-differentiated) Variables for masks.
// Input checks are autograd/check.h's.

#include "autograd/check.h"
#include "autograd/variable.h"

namespace rensa::functions::activation_detail {

// expect_float under its former name, for sigmoid.cc and tanh.cc only (issue 21: delete it
// once they call expect_float).
inline void check_float_input(const char* function, const char* name, const Variable& v) {
    expect_float(v, function, name);
}

// A Variable that backprop treats as a constant (masks, fixed factors).
inline Variable constant(const Array& a) { return Variable(a, false); }

}  // namespace rensa::functions::activation_detail
