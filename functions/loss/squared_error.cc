// squared_error and absolute_error: Chainer's elementwise (unreduced) errors.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "functions/loss.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

// Chainer's type check of both: one float dtype, one shape.
void check_pair(const char* function, const Variable& x0, const Variable& x1) {
    expect_same_float(x0, x1, function, "x0", "x1");
    expect_same_shape(x0, x1, function, "x0", "x1");
}

}  // namespace

Variable squared_error(const Variable& x0, const Variable& x1) {
    check_pair("squared_error", x0, x1);
    return squared_difference(x0, x1);
}

Variable absolute_error(const Variable& x0, const Variable& x1) {
    check_pair("absolute_error", x0, x1);
    return absolute(x0 - x1);
}

}  // namespace rensa::functions
