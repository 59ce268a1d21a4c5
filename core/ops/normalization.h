#pragma once
// Batch normalization routines (no graph; functions/normalization builds on them).
// `axes` are the axes the statistics are taken over (Chainer's `axis`); gamma, beta,
// mean and var have x's shape with those axes removed. Statistics are computed in
// float32 for float16/bfloat16 x, else in x's dtype; y and gx keep x's dtype, ggamma
// and gbeta keep gamma's. Bad shapes throw DimensionError, non-float dtypes DtypeError.

#include "core/array.h"

namespace rensa::ops {

struct BatchNormResult {
    Array y;
    Array mean, inv_std;  // batch statistics (gamma's shape, the compute dtype)
};
// y = (x - mean) * inv_std * gamma + beta with the batch mean and inv_std =
// 1 / sqrt(var + eps) (biased variance) over `axes`.
[[nodiscard]] BatchNormResult batch_norm(const Array& x, const Array& gamma, const Array& beta, const Axes& axes,
                                         double eps);
// The same with given statistics: y = (x - mean) / sqrt(var + eps) * gamma + beta.
[[nodiscard]] Array fixed_batch_norm(const Array& x, const Array& gamma, const Array& beta, const Array& mean,
                                     const Array& var, const Axes& axes, double eps);

struct BatchNormGrads {
    Array gx, ggamma, gbeta;
};
// Gradients of batch_norm (batch statistics) for the output gradient gy (x's shape);
// mean and inv_std are the ones batch_norm returned.
[[nodiscard]] BatchNormGrads batch_norm_backward(const Array& x, const Array& gamma, const Array& mean,
                                                 const Array& inv_std, const Array& gy, const Axes& axes);

// Chainer's default axes: (0, gamma_ndim + 1, ..., x_ndim - 1).
[[nodiscard]] Axes batch_norm_default_axes(int x_ndim, int gamma_ndim);
// The dtype statistics are computed in for x: float32 for float16/bfloat16, else x's.
[[nodiscard]] Dtype batch_norm_stat_dtype(Dtype x_dtype);

}  // namespace rensa::ops
