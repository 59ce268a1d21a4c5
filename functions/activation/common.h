#pragma once
// Shared by the activation files (private): the input checks every public function
// starts with, and constant (non-differentiated) Variables for masks.

#include "autograd/variable.h"
#include "core/error.h"

namespace rensa::functions::activation_detail {

inline void check_float_input(const char* function, const char* name, const Variable& v) {
    RENSA_CHECK(v.defined(), ValueError, function, ": ", name, " is an undefined Variable");
    RENSA_CHECK(is_float(v.dtype()), DtypeError, function, ": Expect: ", name,
                ".dtype.kind == 'f', Actual: ", dtype_name(v.dtype()));
}

// A Variable that backprop treats as a constant (masks, fixed factors).
inline Variable constant(const Array& a) { return Variable(a, false); }

}  // namespace rensa::functions::activation_detail
