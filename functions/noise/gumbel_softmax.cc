#include <cmath>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "functions/activation.h"
#include "functions/noise.h"

namespace rensa::functions {

// A composition: the noise is a constant, softmax carries the gradient.
Variable gumbel_softmax(const Variable& log_p, double tau, int axis) {
    expect_float(log_p, "gumbel_softmax", "log_p");
    RENSA_CHECK(tau > 0 && std::isfinite(tau), ValueError, "gumbel_softmax: tau must be positive, got ", tau);
    static_cast<void>(normalize_axis(axis, log_p.ndim(), "gumbel_softmax"));
    // u in [1e-20, 1): both logs stay finite. Computed in float32 at least.
    const Dtype compute = log_p.dtype() == Dtype::kFloat64 ? Dtype::kFloat64 : Dtype::kFloat32;
    const Array u = ops::uniform(log_p.shape(), 1e-20, 1.0, compute, log_p.device());
    const Array g = ops::negative(ops::log(ops::negative(ops::log(u)))).astype(log_p.dtype());
    return softmax((log_p + Variable(g, false)) / tau, axis);
}

}  // namespace rensa::functions
