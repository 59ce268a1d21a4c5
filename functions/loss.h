#pragma once
// Chainer's loss functions (F::...). See functions/functions.h for the family list.
// `reduce` options take Chainer's strings; any other value throws ValueError naming it.
// Float inputs must share one floating-point dtype (DtypeError) and the shapes stated
// (DimensionError); labels are integer Variables, checked on the host (ValueError naming
// the bad value and its position).

#include <cstdint>
#include <functional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "functions/loss/cross_entropy.h"  // IWYU pragma: export

namespace rensa::functions {

// mean((x0 - x1)^2) over every element: a 0-d Variable of x0's dtype. x0 and x1 share
// shape and dtype. Double-differentiable.
[[nodiscard]] Variable mean_squared_error(const Variable& x0, const Variable& x1);
// mean(|x0 - x1|) over every element (0-d). Double-differentiable.
[[nodiscard]] Variable mean_absolute_error(const Variable& x0, const Variable& x1);

// Elementwise 0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta), d = x - t;
// reduce "sum_along_second_axis" (default, needs ndim >= 2) sums axis 1, "no" keeps the
// shape. Double-differentiable.
[[nodiscard]] Variable huber_loss(const Variable& x, const Variable& t, double delta,
                                  std::string_view reduce = "sum_along_second_axis");

// Hinge loss of scores x (N, K) against integer labels t (N,): max(0, 1 + s x) with s = -1
// at the label and +1 elsewhere, squared for norm "L2" ("L1" or "L2", else
// NotImplementedError). reduce "mean" sums and divides by N (0-d); "no" gives (N, K).
[[nodiscard]] Variable hinge(const Variable& x, const Variable& t, std::string_view norm = "L1",
                             std::string_view reduce = "mean");

// KL(N(mean, exp(ln_var)) || N(0, 1)) elementwise = (mean^2 + exp(ln_var) - ln_var - 1) / 2,
// reduced by "sum" (default), "mean" or "no". Double-differentiable.
[[nodiscard]] Variable gaussian_kl_divergence(const Variable& mean, const Variable& ln_var,
                                              std::string_view reduce = "sum");
// Bernoulli negative log-likelihood of x under logits y: softplus(y) - x y, reduced by
// "sum" (default) or "no". Double-differentiable.
[[nodiscard]] Variable bernoulli_nll(const Variable& x, const Variable& y, std::string_view reduce = "sum");
// Gaussian negative log-likelihood of x under N(mean, exp(ln_var)):
// (ln_var + log(2 pi)) / 2 + (x - mean)^2 exp(-ln_var) / 2, reduced by "sum" or "no".
[[nodiscard]] Variable gaussian_nll(const Variable& x, const Variable& mean, const Variable& ln_var,
                                    std::string_view reduce = "sum");

// Contrastive loss of pairs x0, x1 (N, D) with integer labels y (N,) (1: similar):
// (y d^2 + (1 - y) max(margin - d, 0)^2) / 2, d = ||x0 - x1||. reduce "mean" (sum / N,
// 0-d) or "no" (N,). margin must be positive (ValueError). Double-differentiable.
[[nodiscard]] Variable contrastive(const Variable& x0, const Variable& x1, const Variable& y, double margin = 1.0,
                                   std::string_view reduce = "mean");
// Triplet loss max(||a - p||^2 - ||a - n||^2 + margin, 0) per row of (N, D) inputs;
// reduce "mean" (0-d) or "no" (N,). margin must be positive. Double-differentiable.
[[nodiscard]] Variable triplet(const Variable& anchor, const Variable& positive, const Variable& negative,
                               double margin = 0.2, std::string_view reduce = "mean");

// Draws negative sample ids: an integer Array of the given shape with values in [0, W.shape[0]).
using NegativeSampler = std::function<Array(const Shape&)>;
// Negative sampling loss of x (N, D) with labels t (N,) (-1: ignored row) and output
// embeddings W (V, D): per row sum_k softplus(s_k W[ids_k] . x), ids = (t, sampler((N,
// sample_size + 1))[:, 1:]), s_0 = -1, s_k = 1. reduce "sum" (0-d) or "no" (N,).
[[nodiscard]] Variable negative_sampling(const Variable& x, const Variable& t, const Variable& W,
                                         const NegativeSampler& sampler, int64_t sample_size,
                                         std::string_view reduce = "sum");

// Options of connectionist_temporal_classification (Chainer's keyword arguments).
struct CTCOptions {
    Variable input_length{};           // (B,) integers; undefined: every sequence is len(x) long
    Variable label_length{};           // (B,) integers; undefined: t.shape[1] for every sequence
    std::string_view reduce = "mean";  // "mean" over the batch (0-d) or "no" (B,)
};
// CTC loss -log p(t | x) of unnormalized scores x (a list over time of (B, V) Variables)
// with labels t (B, L) (values in [0, V) other than blank_symbol). The gradient is
// Chainer's: softmax(x) minus the label posteriors, zero past input_length. Computed on
// the scores' device in float64; not double-differentiable.
[[nodiscard]] Variable connectionist_temporal_classification(const std::vector<Variable>& x, const Variable& t,
                                                             int64_t blank_symbol, const CTCOptions& options = {});

// --- Chainer's elementwise errors (issue 21). x0 and x1 share shape and floating-point
// dtype (DimensionError / DtypeError); the result has their shape.
// (x0 - x1)^2. Double-differentiable.
[[nodiscard]] Variable squared_error(const Variable& x0, const Variable& x1);
// |x0 - x1|; the gradient is sign(x0 - x1) (0 where they are equal).
[[nodiscard]] Variable absolute_error(const Variable& x0, const Variable& x1);

// --- Losses of issue 23.
// Cross-covariance of y (N, I) and z (N, J): C = yc^T zc / N with yc, zc centred over the
// batch; reduce "half_squared_sum" (default, 0.5 sum C^2, 0-d) or "no" (C, (I, J)).
// Double-differentiable.
[[nodiscard]] Variable cross_covariance(const Variable& y, const Variable& z,
                                        std::string_view reduce = "half_squared_sum");
// DeCov of h (N, M): the covariance hc^T hc / N with its diagonal zeroed; reduce
// "half_squared_sum" (0-d) or "no" ((M, M)).
[[nodiscard]] Variable decov(const Variable& h, std::string_view reduce = "half_squared_sum");
// BlackOut loss of x (N, D), labels t (N,), weights W (V, D) and negative samples (N, S):
// -(log p(t) + sum_s log(1 - p(s))), p the softmax over {t} and the samples. reduce "mean"
// (0-d) or "no" (N,). Double-differentiable.
[[nodiscard]] Variable black_out(const Variable& x, const Variable& t, const Variable& W, const Variable& samples,
                                 std::string_view reduce = "mean");
// Negative log-likelihood of a linear-chain CRF: transition cost (K, K), scores xs[t]
// (B_t, K) and labels ys[t] (B_t,) over sequences sorted by decreasing length (B_t
// non-increasing). reduce "mean" (sum / B_0, 0-d) or "no" (B_0,). Double-differentiable.
[[nodiscard]] Variable crf1d(const Variable& cost, const std::vector<Variable>& xs, const std::vector<Variable>& ys,
                             std::string_view reduce = "mean");
// Viterbi decoding of the same CRF: the best score of each sequence (B_0,) and the best
// path, path[t] an int64 Array (B_t,). The score is differentiable, the path is not.
[[nodiscard]] std::pair<Variable, std::vector<Array>> argmax_crf1d(const Variable& cost,
                                                                   const std::vector<Variable>& xs);
// Discriminative loss for instance segmentation (De Brabandere 2017): embeddings (N, C, H,
// W) with C == max_embedding_dim, labels (N, H, W) (instance k + 1 for k < C; 0 and others
// ignored). Returns (alpha * variance term, beta * distance term, gamma * regularisation),
// each 0-d; norm is 1 or 2 (ValueError otherwise).
[[nodiscard]] std::tuple<Variable, Variable, Variable> discriminative_margin_based_clustering_loss(
    const Variable& embeddings, const Variable& labels, double delta_v, double delta_d, int64_t max_embedding_dim,
    int norm = 1, double alpha = 1.0, double beta = 1.0, double gamma = 0.001);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
