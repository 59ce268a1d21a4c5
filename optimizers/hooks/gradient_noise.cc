// GradientNoise (chainer.optimizer_hooks.GradientNoise) and its default noise function.

#include <cmath>

#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "optimizers/hooks.h"

namespace rensa::optimizer_hooks {

Array exponential_decay_noise(Device device, const Shape& shape, Dtype dtype, const GradientNoise& hook,
                              const UpdateRule& rule) {
    const double stddev = std::sqrt(hook.eta / std::pow(1.0 + static_cast<double>(rule.t), 0.55));
    const Dtype draw = dtype == Dtype::kFloat64 ? Dtype::kFloat64 : Dtype::kFloat32;
    Array noise = ops::normal(shape, 0.0, stddev, draw, device);
    return draw == dtype ? noise : noise.astype(dtype);
}

void GradientNoise::operator()(UpdateRule& rule, const links::Parameter& param) {
    const Array grad = param.grad();
    if (!grad.defined()) return;
    ops::add_inplace(grad, noise_func(grad.device(), grad.shape(), grad.dtype(), *this, rule));
}

}  // namespace rensa::optimizer_hooks
