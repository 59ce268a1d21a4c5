// batch_renormalization (Ioffe 2017) as Chainer computes it: batch normalization whose
// normalized values are corrected by r and d from the running statistics. r and d are
// constants of the graph (the paper's stop_gradient), so the composite's gradient is
// Chainer's; the statistics are computed in gamma's dtype, as Chainer does.

#include <algorithm>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/normalization.h"

namespace rensa::functions {
namespace {

constexpr const char* kName = "batch_renormalization";

void check_inputs(const Variable& x, const Variable& gamma, const Variable& beta,
                  const BatchRenormalizationOptions& o) {
    expect_float(x, kName, "x");
    expect_float(gamma, kName, "gamma");
    expect_same_dtype(gamma, beta, kName, "gamma", "beta");
    expect_same_shape(gamma, beta, kName, "gamma", "beta");
    const int m = gamma.ndim();
    RENSA_CHECK(x.ndim() >= m + 1, DimensionError, kName, ": Expect: x.ndim >= gamma.ndim + 1, Actual: ", x.ndim(),
                " < ", m + 1);
    for (int i = 0; i < m; ++i) {
        RENSA_CHECK(x.shape()[i + 1] == gamma.shape()[i], DimensionError, kName,
                    ": Expect: x.shape[1:1 + gamma.ndim] == gamma.shape, Actual: x.shape = ", x.shape(),
                    ", gamma.shape = ", gamma.shape());
    }
    RENSA_CHECK(o.running_mean.defined() && o.running_var.defined(), ValueError, kName,
                ": running_mean and running_var are required");
    for (const Array* s : {&o.running_mean, &o.running_var}) {
        RENSA_CHECK(s->shape() == gamma.shape(), DimensionError, kName,
                    ": Expect: running statistics of gamma's shape ", gamma.shape(), ", Actual: ", s->shape());
    }
}

// Running statistics updated in place (Chainer's update_statistics=True).
void update_statistics(const Array& mean, const Array& var, double m, const BatchRenormalizationOptions& o) {
    const double adjust = m / std::max(m - 1.0, 1.0);  // unbiased variance
    o.running_mean.assign(ops::add(ops::multiply(o.running_mean, o.decay), ops::multiply(mean, 1.0 - o.decay)));
    o.running_var.assign(ops::add(ops::multiply(o.running_var, o.decay), ops::multiply(var, (1.0 - o.decay) * adjust)));
}

}  // namespace

Variable batch_renormalization(const Variable& x, const Variable& gamma, const Variable& beta, double rmax, double dmax,
                               const BatchRenormalizationOptions& options) {
    check_inputs(x, gamma, beta, options);
    const int head = gamma.ndim() + 1;
    Axes axes{0};
    for (int i = head; i < x.ndim(); ++i) axes.push_back(i);
    Shape expanded{1};  // gamma's shape between singleton batch and trailing axes
    for (int64_t s : gamma.shape()) expanded.push_back(s);
    for (int i = head; i < x.ndim(); ++i) expanded.push_back(1);

    const Dtype dtype = gamma.dtype();
    const Variable xc = cast(x, dtype);
    const Variable x_mu = xc - mean(xc, axes, true);
    const Variable var = mean(x_mu * x_mu, axes, true);
    const Variable std = sqrt(var + options.eps);
    const Array running_mean = options.running_mean.astype(dtype, false);
    const Array running_sigma = ops::sqrt(ops::add(options.running_var.astype(dtype, false), options.eps));
    const Array batch_std = std.array().reshape(gamma.shape());
    const Array mean_c = ops::mean(xc.array(), axes);
    const Array r = ops::clip(ops::divide(batch_std, running_sigma), 1.0 / rmax, rmax).reshape(expanded);
    const Array d =
        ops::clip(ops::divide(ops::subtract(mean_c, running_mean), running_sigma), -dmax, dmax).reshape(expanded);
    const Variable x_hat_renorm = x_mu / std * as_variable(r) + as_variable(d);
    const Variable y = reshape(gamma, expanded) * x_hat_renorm + reshape(beta, expanded);
    if (options.update_statistics) {
        const double m = static_cast<double>(x.array().size() / std::max<int64_t>(gamma.array().size(), 1));
        update_statistics(mean_c, var.array().reshape(gamma.shape()), m, options);
    }
    return cast(y, x.dtype());
}

Variable fixed_batch_renormalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                     const Variable& mean, const Variable& var, double eps) {
    return fixed_batch_normalization(x, gamma, beta, mean, var, eps);
}

}  // namespace rensa::functions
