// The variational auto-encoder losses of Chainer's functions/loss/vae.py, composed from
// differentiable pieces (so double backprop comes for free).

#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/shape_ops.h"
#include "functions/activation.h"
#include "functions/loss.h"
#include "functions/loss/loss_util.h"

namespace rensa::functions {
namespace {

Variable reduce_loss(const Variable& loss, std::string_view reduce) {
    if (reduce == "sum") return rensa::sum(loss);
    if (reduce == "mean") return rensa::sum(loss) / static_cast<double>(loss.size());
    return loss;
}

}  // namespace

Variable gaussian_kl_divergence(const Variable& mean, const Variable& ln_var, std::string_view reduce) {
    detail::check_loss_reduce("gaussian_kl_divergence", reduce, {"sum", "mean", "no"});
    detail::check_loss_float("gaussian_kl_divergence", "mean", mean);
    detail::check_loss_like("gaussian_kl_divergence", "mean", mean, "ln_var", ln_var);
    const Variable loss = (mean * mean + rensa::exp(ln_var) - ln_var - 1.0) * 0.5;
    return reduce_loss(loss, reduce);
}

Variable bernoulli_nll(const Variable& x, const Variable& y, std::string_view reduce) {
    detail::check_loss_reduce("bernoulli_nll", reduce, {"sum", "no"});
    detail::check_loss_float("bernoulli_nll", "x", x);
    detail::check_loss_like("bernoulli_nll", "x", x, "y", y);
    const Variable loss = softplus(y) - x * y;
    return reduce_loss(loss, reduce);
}

Variable gaussian_nll(const Variable& x, const Variable& mean, const Variable& ln_var, std::string_view reduce) {
    detail::check_loss_reduce("gaussian_nll", reduce, {"sum", "no"});
    detail::check_loss_float("gaussian_nll", "x", x);
    detail::check_loss_like("gaussian_nll", "x", x, "mean", mean);
    detail::check_loss_like("gaussian_nll", "x", x, "ln_var", ln_var);
    const Variable x_prec = rensa::exp(-ln_var);
    const Variable x_diff = x - mean;
    const Variable x_power = x_diff * x_diff * x_prec * -0.5;
    const Variable loss = (ln_var + std::log(2.0 * std::numbers::pi)) * 0.5 - x_power;
    return reduce_loss(loss, reduce);
}

}  // namespace rensa::functions
