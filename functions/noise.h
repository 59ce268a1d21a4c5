#pragma once
// Chainer's noise functions (F::dropout, F::gaussian, F::gumbel_softmax, F::zoneout,
// F::simplified_dropconnect). Inputs are floating-point Variables (DtypeError otherwise). Random numbers come from the
// seeded global generator (core/random.h: rensa::seed), so a seed gives the same noise again.

#include <utility>

#include "autograd/variable.h"

namespace rensa::functions {

// Training (Config::train): zeroes each element with probability `ratio` and scales the
// rest by 1 / (1 - ratio); otherwise returns x itself. ValueError unless 0 <= ratio < 1.
[[nodiscard]] Variable dropout(const Variable& x, double ratio = 0.5);
// The same with a given mask (Chainer's mask=): x's shape and dtype, elements 0 or
// 1 / (1 - ratio); it is used as is. DimensionError/DtypeError when it does not fit.
[[nodiscard]] Variable dropout(const Variable& x, double ratio, const Array& mask);
// Chainer's return_mask=True: {y, the mask used}; the mask is undefined when not training.
[[nodiscard]] std::pair<Variable, Array> dropout_with_mask(const Variable& x, double ratio = 0.5);

// Training: mean + exp(ln_var / 2) * eps with eps ~ N(0, 1) of mean's shape; otherwise
// mean itself. mean and ln_var share shape and dtype (DimensionError/DtypeError).
[[nodiscard]] Variable gaussian(const Variable& mean, const Variable& ln_var);
// The same with given noise eps (Chainer's eps=; mean's shape and dtype), also in test mode.
[[nodiscard]] Variable gaussian(const Variable& mean, const Variable& ln_var, const Array& eps);

// softmax((log_p + g) / tau, axis) with Gumbel noise g = -log(-log(u)), u ~ U(0, 1):
// a differentiable relaxation of sampling from the categorical distribution log_p.
// ValueError unless tau > 0; DimensionError for a bad axis.
[[nodiscard]] Variable gumbel_softmax(const Variable& log_p, double tau = 0.1, int axis = 1);

// Chainer's zoneout (issue 23): in training each element is h's with probability `ratio`, else
// x's (gradients flow to the one chosen); outside training x itself. h and x share shape and
// float dtype (DimensionError/DtypeError); ValueError unless 0 <= ratio <= 1.
[[nodiscard]] Variable zoneout(const Variable& h, const Variable& x, double ratio = 0.5);

// Chainer's simplified_dropconnect (issue 23): linear(x, W, b) with W's elements dropped with
// probability `ratio` and the rest scaled by 1 / (1 - ratio). x (n, ...) is viewed as (n, N),
// W is (M, N), b (M,) or undefined; the result is (n, M). With use_batchwise_mask each sample
// draws its own mask (n, M, N), else one (M, N). A given mask (that shape; any dtype, nonzero
// keeps) is used as is, also when not training; train = false without a mask is ratio 0
// (Chainer's train argument, not Config::train). ValueError unless 0 <= ratio < 1;
// DimensionError/DtypeError when shapes or dtypes do not fit. Differentiable in x, W and b.
[[nodiscard]] Variable simplified_dropconnect(const Variable& x, const Variable& W, const Variable& b = {},
                                              double ratio = 0.5, bool train = true, const Array& mask = Array(),
                                              bool use_batchwise_mask = true);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
