// sigmoid_cross_entropy (Chainer's semantics): the stable form
// loss = -mask * (x * (t - (x >= 0)) - log1p(exp(-|x|))), with a gradient node whose own
// gradient is composed of differentiable functions (double backprop).

#include <algorithm>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/loss.h"

namespace rensa::functions {
namespace {

constexpr int64_t kIgnoreLabel = -1;

Dtype compute_dtype(Dtype x) { return x == Dtype::kFloat16 || x == Dtype::kBFloat16 ? Dtype::kFloat32 : x; }

// The constants forward and backward share (compute dtype, x's shape).
struct Labels {
    Array mask;          // 1 where t != -1
    Array t;             // t as floats
    double count = 1.0;  // reduce "mean" divides by it
};

// gx = gy * mask * (sigmoid(x) - t) (/ count for "mean"), differentiable again.
class SigmoidCrossEntropyGrad : public FunctionNode {
public:
    SigmoidCrossEntropyGrad(Labels labels, bool mean) : labels_{std::move(labels)}, mean_{mean} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 1});
        const Dtype cd = labels_.mask.dtype();
        const Array y = ops::sigmoid(in[0].astype(cd, false));
        Array gx = ops::multiply(ops::multiply(in[1].astype(cd, false), labels_.mask), ops::subtract(y, labels_.t));
        if (mean_) gx = ops::divide(gx, labels_.count);
        return {gx.astype(in[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        if (!ggs[0].defined()) return {Variable(), Variable()};
        const Variable x = retained_input(0), gy = retained_input(1), ggx = ggs[0];
        const Dtype dt = x.dtype();
        const Variable mask(labels_.mask.astype(dt, false), false), t(labels_.t.astype(dt, false), false);
        const Variable y = 1.0 / (1.0 + exp(-x));
        Variable gx = y * (1.0 - y) * gy * mask * ggx;
        Variable ggy = (y - t) * mask * ggx;
        if (mean_) {
            gx = gx / labels_.count;
            ggy = sum(ggy) / labels_.count;
        }
        return {gx, ggy};
    }
    std::string label() const override { return "SigmoidCrossEntropyGrad"; }

private:
    Labels labels_;
    bool mean_;
};

class SigmoidCrossEntropy : public FunctionNode {
public:
    explicit SigmoidCrossEntropy(SigmoidCrossEntropyOptions options) : options_{std::move(options)} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0});
        const Dtype cd = compute_dtype(in[0].dtype());
        const Array x = in[0].astype(cd, false);
        labels_.mask = ops::not_equal(in[1], kIgnoreLabel).astype(cd);
        labels_.t = in[1].astype(cd);
        const Array positive = ops::greater_equal(x, 0).astype(cd);
        const Array log_term = ops::log1p(ops::exp(ops::negative(ops::abs(x))));
        const Array loss = ops::negative(
            ops::multiply(labels_.mask, ops::subtract(ops::multiply(x, ops::subtract(labels_.t, positive)), log_term)));
        if (options_.reduce == "no") return {loss.astype(in[0].dtype(), false)};
        const double count = options_.normalize ? ops::sum(labels_.mask).item<double>()
                                                : static_cast<double>(in[0].ndim() > 0 ? in[0].shape()[0] : 1);
        labels_.count = std::max(count, 1.0);
        return {ops::divide(ops::sum(loss), labels_.count).astype(in[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        auto grad = std::make_shared<SigmoidCrossEntropyGrad>(labels_, options_.reduce == "mean");
        return {grad->apply({retained_input(0), gys[0]})[0], Variable()};
    }
    std::string label() const override { return "SigmoidCrossEntropy"; }

private:
    SigmoidCrossEntropyOptions options_;
    Labels labels_;
};

}  // namespace

Variable sigmoid_cross_entropy(const Variable& x, const Variable& t, const SigmoidCrossEntropyOptions& options) {
    expect_float(x, "sigmoid_cross_entropy", "x");
    expect_signed_integer(t, "sigmoid_cross_entropy", "t");
    expect_same_shape(x, t, "sigmoid_cross_entropy", "x", "t");
    RENSA_CHECK(options.reduce == "mean" || options.reduce == "no", ValueError,
                "sigmoid_cross_entropy: only 'mean' and 'no' are valid for 'reduce', but '", options.reduce,
                "' is given");
    return std::make_shared<SigmoidCrossEntropy>(options)->apply({x, t})[0];
}

}  // namespace rensa::functions
