// group_normalization, as Chainer composes it: x (n, c, ...) viewed as (1, n * groups,
// rest) (a 2-D x (n, c) too, as in Chainer 7) is batch-normalized per (sample, group) with unit scale and zero shift,
// then scaled by gamma and shifted by beta per channel. Double backprop comes with the pieces.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/normalization.h"
#include "functions/normalization.h"

namespace rensa::functions {

Variable group_normalization(const Variable& x, int64_t groups, const Variable& gamma, const Variable& beta,
                             double eps) {
    expect_float(x, "group_normalization", "x");
    RENSA_CHECK(x.ndim() >= 2, DimensionError,
                "group_normalization: Expect: x.ndim >= 2, Actual: x.shape = ", x.shape());
    const int64_t batch = x.shape()[0], channels = x.shape()[1];
    RENSA_CHECK(groups > 0 && channels % groups == 0, ValueError,
                "group_normalization: Argument: 'groups' must be a divisor of the number of channel, got groups=",
                groups, " for ", channels, " channels");
    RENSA_CHECK(gamma.shape() == Shape{channels} && beta.shape() == Shape{channels}, DimensionError,
                "group_normalization: Expect: gamma.shape == beta.shape == (", channels, ",), Actual: ", gamma.shape(),
                ", ", beta.shape());
    expect_same_dtype(gamma, x, "group_normalization", "gamma", "x");
    expect_same_dtype(beta, x, "group_normalization", "beta", "x");
    const Dtype sd = ops::batch_norm_stat_dtype(x.dtype());
    const Variable ones(ops::ones({batch * groups}, sd, x.device()), false);
    const Variable zeros(ops::zeros({batch * groups}, sd, x.device()), false);
    const Variable grouped = reshape(x, {1, batch * groups, -1});
    const Variable normalized = reshape(batch_normalization(grouped, ones, zeros, {.eps = eps}), x.shape());
    Shape param_shape(x.ndim(), 1);
    param_shape[1] = channels;
    return normalized * reshape(gamma, param_shape) + reshape(beta, param_shape);
}

}  // namespace rensa::functions
