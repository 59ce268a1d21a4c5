#pragma once
// Chainer's activation functions (F::relu, F::softmax, F::lstm, ...). Inputs are
// floating-point Variables (DtypeError otherwise); results keep the input's dtype and
// shape unless stated. All of them support double backprop.

#include <utility>
#include <vector>

#include "autograd/variable.h"

namespace rensa::functions {

// max(x, 0).
[[nodiscard]] Variable relu(const Variable& x);
// x where x >= 0, slope * x elsewhere.
[[nodiscard]] Variable leaky_relu(const Variable& x, double slope = 0.2);
// x where x > 0, alpha * (exp(x) - 1) elsewhere.
[[nodiscard]] Variable elu(const Variable& x, double alpha = 1.0);
// scale * elu(x, alpha), with the self-normalising constants by default.
[[nodiscard]] Variable selu(const Variable& x, double alpha = 1.6732632423543772, double scale = 1.0507009873554805);
// min(max(0, x), z).
[[nodiscard]] Variable clipped_relu(const Variable& x, double z = 20.0);
// 1 / (1 + exp(-x)).
[[nodiscard]] Variable sigmoid(const Variable& x);
// clip(0.2 * x + 0.5, 0, 1).
[[nodiscard]] Variable hard_sigmoid(const Variable& x);
[[nodiscard]] Variable tanh(const Variable& x);
// log(1 + exp(beta * x)) / beta, computed without overflow.
[[nodiscard]] Variable softplus(const Variable& x, double beta = 1.0);
// x * sigmoid(beta * x); beta (learnable) has shape x.shape[1:1 + beta.ndim] and is
// broadcast along the other axes. DimensionError when the shapes do not fit.
[[nodiscard]] Variable swish(const Variable& x, const Variable& beta);
// The exact GELU: x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))).
[[nodiscard]] Variable gelu(const Variable& x);
// exp(x) / sum(exp(x), axis), computed stably. DimensionError for a bad axis.
[[nodiscard]] Variable softmax(const Variable& x, int axis = 1);
// x - logsumexp(x, axis), computed stably. DimensionError for a bad axis.
[[nodiscard]] Variable log_softmax(const Variable& x, int axis = 1);
// x where x >= 0, W * x elsewhere; W (same dtype) has shape x.shape[1:1 + W.ndim] and is
// broadcast along the other axes. DimensionError/DtypeError when W does not fit.
[[nodiscard]] Variable prelu(const Variable& x, const Variable& W);  // NOLINT(readability-identifier-naming)
// Maximum over groups of pool_size consecutive channels of `axis`: the axis shrinks to
// x.shape[axis] / pool_size. ValueError unless pool_size > 0 divides x.shape[axis].
[[nodiscard]] Variable maxout(const Variable& x, int64_t pool_size, int axis = 1);
// Chainer's LSTM cell: x (batch, 4 * units, ...) holds the gates a, i, f, o interleaved
// along axis 1 (x.reshape(batch, units, 4, ...)[:, :, k]); c_prev (batch, units, ...).
// c = tanh(a) * sigmoid(i) + sigmoid(f) * c_prev, h = sigmoid(o) * tanh(c); returns {c, h}.
// c_prev may have more rows than x (Chainer's shrinking batches): its extra rows pass
// into c unchanged, h has x's rows. DimensionError/DtypeError when the shapes do not fit.
[[nodiscard]] std::pair<Variable, Variable> lstm(const Variable& c_prev, const Variable& x);

// --- Chainer's relu6 and crelu (issue 21).
// min(max(0, x), 6): clipped_relu(x, 6).
[[nodiscard]] Variable relu6(const Variable& x);
// Concatenated ReLU: concat(relu(x), relu(-x)) along `axis`, which doubles in length.
// DimensionError for a bad axis.
[[nodiscard]] Variable crelu(const Variable& x, int axis = 1);

// --- Chainer's rrelu, slstm and tree_lstm (issue 23).
// Randomized leaky ReLU: x where x >= 0, r * x elsewhere. Training (Config::train): r is the
// given array (x's shape and dtype; DimensionError/DtypeError otherwise) or U(l, u) noise
// from the seeded generator; in test mode r is (l + u) / 2 everywhere, given or not, as Chainer.
// rrelu_with_r also returns the r used (Chainer's return_r=True).
[[nodiscard]] Variable rrelu(const Variable& x, double l = 1.0 / 8, double u = 1.0 / 3, const Array& r = Array());
[[nodiscard]] std::pair<Variable, Array> rrelu_with_r(const Variable& x, double l = 1.0 / 8, double u = 1.0 / 3,
                                                      const Array& r = Array());
// Chainer's S-LSTM cell of two children: x1, x2 (batch, 4 * units, ...) hold the gates a, i,
// f, o interleaved as lstm's; c_prev1, c_prev2 (batch, units, ...).
// c = tanh(a1) sigmoid(i1) + tanh(a2) sigmoid(i2) + sigmoid(f1) c_prev1 + sigmoid(f2) c_prev2,
// h = sigmoid(o1 + o2) tanh(c); returns {c, h}. DimensionError/DtypeError when shapes do not fit.
[[nodiscard]] std::pair<Variable, Variable> slstm(const Variable& c_prev1, const Variable& c_prev2, const Variable& x1,
                                                  const Variable& x2);
// Chainer's tree LSTM cell of n = cs.size() >= 1 children: x (batch, (3 + n) * units, ...)
// holds the gates a, i, o, f_1 .. f_n in blocks (x.reshape(batch, 3 + n, units, ...)[:, k]);
// c = tanh(a) sigmoid(i) + sum_k sigmoid(f_k) c_k, h = sigmoid(o) tanh(c); returns {c, h}.
[[nodiscard]] std::pair<Variable, Variable> tree_lstm(const std::vector<Variable>& cs, const Variable& x);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
