// The variational auto-encoder losses of Chainer's functions/loss/vae.py, composed from
// differentiable pieces (so double backprop comes for free).

#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "functions/activation.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

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
    expect_float(mean, "gaussian_kl_divergence", "mean");
    expect_same_dtype(mean, ln_var, "gaussian_kl_divergence", "mean", "ln_var");
    expect_same_shape(mean, ln_var, "gaussian_kl_divergence", "mean", "ln_var");
    const Variable loss = (mean * mean + rensa::exp(ln_var) - ln_var - 1.0) * 0.5;
    return reduce_loss(loss, reduce);
}

Variable bernoulli_nll(const Variable& x, const Variable& y, std::string_view reduce) {
    detail::check_loss_reduce("bernoulli_nll", reduce, {"sum", "no"});
    expect_float(x, "bernoulli_nll", "x");
    expect_same_dtype(x, y, "bernoulli_nll", "x", "y");
    expect_same_shape(x, y, "bernoulli_nll", "x", "y");
    const Variable loss = softplus(y) - x * y;
    return reduce_loss(loss, reduce);
}

Variable gaussian_nll(const Variable& x, const Variable& mean, const Variable& ln_var, std::string_view reduce) {
    detail::check_loss_reduce("gaussian_nll", reduce, {"sum", "no"});
    expect_float(x, "gaussian_nll", "x");
    expect_same_dtype(x, mean, "gaussian_nll", "x", "mean");
    expect_same_shape(x, mean, "gaussian_nll", "x", "mean");
    expect_same_dtype(x, ln_var, "gaussian_nll", "x", "ln_var");
    expect_same_shape(x, ln_var, "gaussian_nll", "x", "ln_var");
    const Variable x_prec = rensa::exp(-ln_var);
    const Variable x_diff = x - mean;
    const Variable x_power = x_diff * x_diff * x_prec * -0.5;
    const Variable loss = (ln_var + std::log(2.0 * std::numbers::pi)) * 0.5 - x_power;
    return reduce_loss(loss, reduce);
}

}  // namespace rensa::functions
