// zoneout: Chainer's zoneout regularization, h * flag_h + x * flag_x with constant 0/1 masks,
// so its gradients (gy * flag_h, gy * flag_x) and double backprop are autograd's.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "functions/noise.h"

namespace rensa::functions {

Variable zoneout(const Variable& h, const Variable& x, double ratio) {
    expect_float(h, "zoneout", "h");
    expect_same_dtype(h, x, "zoneout", "h", "x");
    expect_same_shape(h, x, "zoneout", "h", "x");
    RENSA_CHECK(ratio >= 0.0 && ratio <= 1.0, ValueError, "zoneout: Expect: 0 <= ratio <= 1, Actual: ", ratio);
    if (!config().train) return x;
    // Chainer's flag_x = rand >= ratio: x's element is kept with probability 1 - ratio.
    const Array flag_x = ops::bernoulli(x.shape(), 1.0 - ratio, x.dtype(), x.device());
    const Array flag_h = ops::subtract(Scalar(1.0), flag_x);
    return h * Variable(flag_h, false) + x * Variable(flag_x, false);
}

}  // namespace rensa::functions
