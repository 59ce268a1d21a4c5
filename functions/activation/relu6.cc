// relu6 and crelu: Chainer's ReLU variants built from clipped_relu, relu and concat.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/shape.h"
#include "functions/activation.h"
#include "functions/array.h"

namespace rensa::functions {

Variable relu6(const Variable& x) {
    expect_float(x, "relu6", "x");
    return clipped_relu(x, 6.0);
}

Variable crelu(const Variable& x, int axis) {
    expect_float(x, "crelu", "x");
    const int a = normalize_axis(axis, x.ndim(), "crelu");
    return concat({relu(x), relu(-x)}, a);
}

}  // namespace rensa::functions
