// softmax_cross_entropy with soft targets: t is a float array of x's shape holding a
// distribution over axis 1 (Chainer 7's soft_target_loss, 'cross-entropy' or
// 'kl-divergence').
//
// Note [Soft target semantics]: as Chainer 7.8.1 does, the loss per sample is
// -sum(t * log_softmax(x), 1) or sum(t * (log(t + 1e-7) - log_softmax(x)), 1);
// reduce 'mean' divides by the number of samples x.size / x.shape[1] whatever `normalize`
// says, class_weight and ignore_label are not used, t gets no gradient, and the fused
// gradient is softmax(x) - t (the exact one when t sums to 1 along axis 1, as a
// distribution does). With enable_double_backprop the loss is composed of differentiable
// functions (Chainer has no soft-target double backprop; its generic path takes integer
// labels only), whose gradient is exact for any t.

#include <algorithm>
#include <optional>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "core/ops/softmax.h"
#include "functions/activation.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions::detail {
namespace {

constexpr double kKlEps = 1e-7;  // Chainer's SoftmaxCrossEntropy.eps

Dtype compute_dtype(Dtype x) { return x == Dtype::kFloat16 || x == Dtype::kBFloat16 ? Dtype::kFloat32 : x; }

// gx = (softmax(x) - t) * gloss (* coeff for 'mean'), gloss broadcast over axis 1.
class SoftTargetGrad : public FunctionNode {
public:
    SoftTargetGrad(Dtype dtype, Array x, Array y, Array t, std::optional<double> coeff)
        : dtype_{dtype}, x_{std::move(x)}, y_{std::move(y)}, t_{std::move(t)}, coeff_{coeff} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Dtype cd = compute_dtype(dtype_);
        const Array y = y_.defined() ? y_ : ops::softmax(x_.astype(cd, false), 1);
        Array scale = in[0].astype(cd, false);
        if (coeff_) {
            scale = ops::multiply(scale, *coeff_);
        } else {
            scale = scale.expand_dims(1);
        }
        return {ops::multiply(ops::subtract(y, t_.astype(cd, false)), scale).astype(dtype_, false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        RENSA_THROW(NotImplementedError,
                    "softmax_cross_entropy: the gradient is not differentiable; pass "
                    ".enable_double_backprop = true for double backprop");
    }
    std::string label() const override { return "SoftmaxCrossEntropyGrad"; }

private:
    Dtype dtype_;
    Array x_, y_, t_;              // y_: cached softmax(x), or undefined (recomputed from x_)
    std::optional<double> coeff_;  // 'mean': 1 / number of samples; 'no': unset
};

class SoftTargetSoftmaxCrossEntropy : public FunctionNode {
public:
    explicit SoftTargetSoftmaxCrossEntropy(SoftmaxCrossEntropyOptions options) : options_{std::move(options)} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Array& x = in[0];
        const Dtype cd = compute_dtype(x.dtype());
        t_ = in[1].astype(cd, false);
        const Array log_y = ops::log_softmax(x.astype(cd, false), 1);
        if (options_.cache_score) {
            y_ = ops::exp(log_y);
        } else {
            x_ = x;
        }
        Array per_sample;
        if (options_.soft_target_loss == "kl-divergence") {
            per_sample = ops::sum(ops::multiply(t_, ops::subtract(ops::log(ops::add(t_, kKlEps)), log_y)), Axes{1});
        } else {
            per_sample = ops::negative(ops::sum(ops::multiply(t_, log_y), Axes{1}));
        }
        if (options_.reduce == "no") return {per_sample.astype(x.dtype(), false)};
        coeff_ = 1.0 / static_cast<double>(std::max<int64_t>(per_sample.size(), 1));
        return {ops::multiply(ops::sum(per_sample), *coeff_).astype(x.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        auto grad = std::make_shared<SoftTargetGrad>(input_dtype(0), x_, y_, t_, coeff_);
        return {grad->apply({gys[0]})[0], Variable()};
    }
    std::string label() const override { return "SoftmaxCrossEntropy"; }

private:
    SoftmaxCrossEntropyOptions options_;
    Array x_, y_, t_;
    std::optional<double> coeff_;
};

// The same loss composed of differentiable functions (double backprop).
Variable composed_soft_target_loss(const Variable& x, const Variable& t, const SoftmaxCrossEntropyOptions& o) {
    const Variable tc(t.array().astype(x.dtype(), false), false);
    const Variable log_y = log_softmax(x, 1);
    Variable per_sample = o.soft_target_loss == "kl-divergence"
                              ? sum(tc * (Variable(ops::log(ops::add(tc.array(), kKlEps)), false) - log_y), Axes{1})
                              : -sum(tc * log_y, Axes{1});
    if (o.reduce == "no") return per_sample;
    return sum(per_sample) * (1.0 / static_cast<double>(std::max<int64_t>(per_sample.size(), 1)));
}

}  // namespace

Variable soft_target_softmax_cross_entropy(const Variable& x, const Variable& t,
                                           const SoftmaxCrossEntropyOptions& options) {
    expect_float(x, "softmax_cross_entropy", "x");
    expect_float(t, "softmax_cross_entropy", "t");
    RENSA_CHECK(x.ndim() >= 2 && t.shape() == x.shape(), DimensionError,
                "softmax_cross_entropy: Expect: x.shape == t.shape with x.ndim >= 2 (soft targets), Actual: x.shape=",
                x.shape(), ", t.shape=", t.shape());
    if (options.enable_double_backprop) return composed_soft_target_loss(x, t, options);
    return std::make_shared<SoftTargetSoftmaxCrossEntropy>(options)->apply({x, t})[0];
}

}  // namespace rensa::functions::detail
