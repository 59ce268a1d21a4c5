// GradientLARS (chainer.optimizer_hooks.GradientLARS).

#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "optimizers/hooks.h"

namespace rensa::optimizer_hooks {

namespace {

// L2 norm as a 0-d array on the array's device (no host round trip), float32 at least.
Array l2_norm(const Array& x) {
    const Array y = x.dtype() == Dtype::kFloat16 || x.dtype() == Dtype::kBFloat16 ? x.astype(Dtype::kFloat32) : x;
    return ops::sqrt(ops::sum(ops::square(y)));
}

}  // namespace

// Chainer's formula: rate = |p| / (eps + |g| + weight_decay * |p|) when |p| > threshold,
// else 1; then g += weight_decay * p; g *= rate.
void GradientLARS::operator()(UpdateRule&, const links::Parameter& param) {
    if (!param.is_initialized()) return;
    const Array grad = param.grad();
    if (!grad.defined()) return;
    const Array& p = param.array();
    const Array p_norm = l2_norm(p);
    const Array g_norm = l2_norm(grad);
    const Array local_rate =
        ops::divide(p_norm, ops::add(ops::add(g_norm, Scalar(eps)), ops::multiply(p_norm, Scalar(weight_decay))));
    const Array rate = ops::where(ops::greater(p_norm, Scalar(threshold)), local_rate, Scalar(1.0));
    if (weight_decay != 0.0) ops::add_inplace(grad, ops::multiply(p, Scalar(weight_decay)));
    grad.assign(ops::multiply(grad, rate.astype(grad.dtype())));
}

}  // namespace rensa::optimizer_hooks
