#pragma once
// Cross-entropy losses (F::softmax_cross_entropy, F::sigmoid_cross_entropy); included by
// functions/loss.h.

#include <cstdint>
#include <string>

#include "autograd/variable.h"

namespace rensa::functions {

// Options of softmax_cross_entropy (Chainer's keyword arguments).
struct SoftmaxCrossEntropyOptions {
    // reduce "mean": divide the summed loss by the number of non-ignored labels (true) or
    // by the batch size x.shape[0] (false).
    bool normalize = true;
    bool cache_score = true;  // keep softmax(x) from the forward pass for backward
    Array class_weight{};     // (x.shape[1]) weights of the classes, or undefined
    int64_t ignore_label = -1;
    std::string reduce = "mean";  // "mean": a 0-d loss; "no": per-sample losses (t's shape)
    // Compose differentiable functions so the gradient can be differentiated again;
    // otherwise one fused node whose gradient is not differentiable (as in Chainer).
    bool enable_double_backprop = false;
    // For a float t (soft targets): "cross-entropy" or "kl-divergence".
    std::string soft_target_loss = "cross-entropy";
};

// Cross entropy of softmax(x) along axis 1 against integer labels t (x.shape without
// axis 1); labels equal to ignore_label count 0. A float t of x's shape is a soft target,
// a distribution over axis 1 (Note [Soft target semantics]: normalize, class_weight and
// ignore_label do not apply). Throws DtypeError (x not float or t neither integer nor
// float), DimensionError (shapes), ValueError (a label out of [0, x.shape[1]) that is not
// ignore_label, named with its position; a bad `reduce` or `soft_target_loss`).
[[nodiscard]] Variable softmax_cross_entropy(const Variable& x, const Variable& t,
                                             const SoftmaxCrossEntropyOptions& options = {});

// Options of sigmoid_cross_entropy.
struct SigmoidCrossEntropyOptions {
    // reduce "mean": divide by the number of labels other than -1 (true) or by
    // x.shape[0] (false).
    bool normalize = true;
    std::string reduce = "mean";  // or "no": the elementwise loss (x's shape)
};

// Cross entropy of sigmoid(x) against integer labels t (x's shape; 0, 1, or -1 to
// ignore). Supports double backprop. Throws DtypeError, DimensionError, ValueError.
[[nodiscard]] Variable sigmoid_cross_entropy(const Variable& x, const Variable& t,
                                             const SigmoidCrossEntropyOptions& options = {});

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
