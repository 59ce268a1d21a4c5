// Chainer's F.batch_l2_norm_squared: the squared L2 norm of each sample, composed of
// differentiable functions (so double backprop follows).

#include "autograd/check.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/math.h"

namespace rensa::functions {

Variable batch_l2_norm_squared(const Variable& x) {
    expect_float(x, "batch_l2_norm_squared", "x");
    RENSA_CHECK(x.ndim() >= 1, DimensionError,
                "batch_l2_norm_squared: Expect: x.ndim >= 1 (a batch axis), Actual: ", x.ndim());
    return sum(square(reshape(x, Shape{x.shape()[0], -1})), Axes{1});
}

}  // namespace rensa::functions
