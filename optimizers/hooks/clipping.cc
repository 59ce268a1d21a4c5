// GradientClipping and GradientHardClipping (chainer.optimizer_hooks).

#include <cmath>
#include <utility>
#include <vector>

#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "optimizers/hooks.h"

namespace rensa::optimizer_hooks {

namespace {

// Sum of squares of one grad, in float32 at least (a float16 sum overflows early).
double squared_norm(const Array& grad) {
    const Array g =
        grad.dtype() == Dtype::kFloat16 || grad.dtype() == Dtype::kBFloat16 ? grad.astype(Dtype::kFloat32) : grad;
    return ops::sum(ops::square(g)).item<double>();
}

}  // namespace

void GradientClipping::operator()(Optimizer& optimizer) {
    std::vector<Array> grads;
    double sqnorm = 0.0;
    for (const links::Parameter& param : optimizer.target().params(/*include_uninit=*/false)) {
        if (Array grad = param.grad(); grad.defined()) {
            sqnorm += squared_norm(grad);
            grads.push_back(std::move(grad));
        }
    }
    const double rate = threshold / std::sqrt(sqnorm);
    if (rate >= 1.0) return;  // within the threshold (also a zero norm: rate is +inf)
    for (const Array& grad : grads) ops::multiply_inplace(grad, Scalar(rate));
}

void GradientHardClipping::operator()(UpdateRule&, const links::Parameter& param) {
    const Array grad = param.grad();
    if (!grad.defined()) return;
    grad.assign(ops::clip(grad, Scalar(lower_bound), Scalar(upper_bound)));
}

}  // namespace rensa::optimizer_hooks
