#pragma once
// Chainer's normalization functions (F::...). See functions/functions.h for the family list.
// Inputs must be floating point (DtypeError); shapes that do not fit throw DimensionError.
// float16 inputs are normalized with float32 statistics and give float16 results.

#include <cstdint>
#include <optional>

#include "autograd/variable.h"

namespace rensa::functions {

// Options of batch_normalization (Chainer's keyword arguments).
struct BatchNormalizationOptions {
    double eps = 2e-5;
    // Running statistics (gamma's shape), updated in place when defined:
    // running_mean = decay * running_mean + (1 - decay) * mean, and running_var likewise
    // with the unbiased variance (m / (m - 1) times the batch variance).
    Array running_mean{}, running_var{};
    double decay = 0.9;
    // Axes the statistics are taken over; by default 0 and the axes after gamma's
    // (gamma, beta: x.shape[1 : 1 + gamma.ndim]).
    std::optional<Axes> axis{};
};

// Batch normalization with batch statistics (training mode):
// y = (x - mean) / sqrt(var + eps) * gamma + beta, mean and var over the `axis` axes.
// gamma and beta have x's shape without those axes. Supports double backprop.
[[nodiscard]] Variable batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                           const BatchNormalizationOptions& options = {});
// Batch normalization with given statistics (test mode): y = (x - mean) / sqrt(var +
// eps) * gamma + beta; mean and var have gamma's shape. Supports double backprop.
[[nodiscard]] Variable fixed_batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                                 const Variable& mean, const Variable& var, double eps = 2e-5,
                                                 const std::optional<Axes>& axis = std::nullopt);
// Layer normalization of a 2-D x (batch, units) over axis 1, then * gamma + beta (units).
[[nodiscard]] Variable layer_normalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                           double eps = 1e-5);
// Group normalization of x (n, c, ...) with c split into `groups` groups (c % groups
// == 0), then * gamma + beta (c). x.ndim must be at least 2 (DimensionError otherwise).
[[nodiscard]] Variable group_normalization(const Variable& x, int64_t groups, const Variable& gamma,
                                           const Variable& beta, double eps = 1e-5);

// Options of local_response_normalization.
struct LocalResponseNormalizationOptions {
    int64_t n = 5;  // window width over channels
    double k = 2.0, alpha = 1e-4, beta = 0.75;
};
// Cross-channel normalization of x (n, c, ...): y = x / (k + alpha * sum of x^2 over
// the n neighbouring channels)^beta. No double backprop (as in Chainer).
[[nodiscard]] Variable local_response_normalization(const Variable& x,
                                                    const LocalResponseNormalizationOptions& options = {});
// L2 normalization along `axis`: y = x / (sqrt(sum(x^2, axis)) + eps). DimensionError for
// an axis out of range or repeated.
[[nodiscard]] Variable normalize(const Variable& x, double eps = 1e-5, int axis = 1);
// The same over several axes at once (Chainer's tuple axis).
[[nodiscard]] Variable normalize(const Variable& x, double eps, const Axes& axis);

// --- Batch renormalization (issue 23).
// Chainer's keyword arguments of batch_renormalization. The running statistics are
// required (gamma's shape); they are updated in place only with update_statistics.
struct BatchRenormalizationOptions {
    double eps = 2e-5;
    Array running_mean{}, running_var{};
    double decay = 0.9;
    bool update_statistics = false;
};
// Batch renormalization: y = gamma * (x_hat * r + d) + beta with x_hat the batch-normalized
// x (statistics over axis 0 and the axes after gamma's), r = clip(sigma_B / sigma_run,
// 1 / rmax, rmax) and d = clip((mu_B - mu_run) / sigma_run, -dmax, dmax) held constant in
// the gradient (Chainer's). ValueError without running statistics; DimensionError when
// gamma, beta or the statistics do not fit x.shape[1 : 1 + gamma.ndim].
[[nodiscard]] Variable batch_renormalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                             double rmax, double dmax, const BatchRenormalizationOptions& options);
// Chainer's deprecated alias of fixed_batch_normalization (test mode).
[[nodiscard]] Variable fixed_batch_renormalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                                   const Variable& mean, const Variable& var, double eps = 2e-5);

// --- Decorrelated batch normalization (issue 23).
// Chainer's keyword arguments of decorrelated_batch_normalization. Defined running
// statistics (mean (groups, C), projection (groups, C, C), C = channels / groups) are
// updated in place with the batch mean and the whitening matrix (unbiased: m / (m - 1)).
struct DecorrelatedBatchNormalizationOptions {
    int64_t groups = 16;
    double eps = 2e-5;
    Array running_mean{}, running_projection{};
    double decay = 0.9;
};
// ZCA whitening of x (b, c, ...) per group of C = c / groups channels over the batch and
// spatial axes: y = (cov + eps I)^-1/2 (x - mean). DimensionError unless c % groups == 0.
// Chainer's gradient; no double backprop.
[[nodiscard]] Variable decorrelated_batch_normalization(const Variable& x,
                                                        const DecorrelatedBatchNormalizationOptions& options = {});
// Test mode: y = projection (x - mean) per group, mean (groups, C), projection (groups, C, C)
// of x's dtype. Differentiable in x, mean and projection.
[[nodiscard]] Variable fixed_decorrelated_batch_normalization(const Variable& x, const Variable& mean,
                                                              const Variable& projection, int64_t groups = 16);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
