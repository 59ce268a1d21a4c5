// Connectionist temporal classification (Graves et al., 2006), Chainer's F.connectionist_temporal_classification.
// The forward-backward recursions run on the scores' device (functions/loss/ctc_recursion.cc,
// Note [CTC on devices]); the loss node keeps the gradient they give.

#include <memory>
#include <string>
#include <vector>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/manipulation.h"
#include "core/ops/reduction.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

// gx_t = grad_t * gy (/ B for "mean"), from the gradient kept by the forward pass.
class CTCGrad : public FunctionNode {
public:
    CTCGrad(Array grad, bool mean, Dtype dtype) : grad_{std::move(grad)}, mean_{mean}, dtype_{dtype} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const int64_t T = grad_.shape()[0], B = grad_.shape()[1];
        const Array gy = in[0].to_device(grad_.device()).astype(Dtype::kFloat64, false);
        const Array scale = mean_ ? ops::divide(gy, static_cast<double>(B)) : gy.reshape({1, B, 1});
        const Array g = ops::multiply(grad_, scale);
        std::vector<Array> gxs;
        for (int64_t t = 0; t < T; ++t) gxs.push_back(g[t].astype(dtype_));
        return gxs;
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        RENSA_THROW(NotImplementedError, "connectionist_temporal_classification: double backprop is not supported");
    }
    std::string label() const override { return "ConnectionistTemporalClassificationGrad"; }

private:
    Array grad_;  // (T, B, V) float64, unscaled
    bool mean_;
    Dtype dtype_;
};

// Inputs: x_0 ... x_{T-1}; the labels and lengths are held by the node.
class ConnectionistTemporalClassification : public FunctionNode {
public:
    ConnectionistTemporalClassification(Array t, Array input_length, Array label_length, int64_t blank, bool mean)
        : t_{std::move(t)},
          input_length_{std::move(input_length)},
          label_length_{std::move(label_length)},
          blank_{blank},
          mean_{mean} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        detail::CtcResult r = detail::ctc_forward_backward(xs, t_, input_length_, label_length_, blank_);
        grad_ = std::move(r.grad);
        const Array out = mean_ ? ops::divide(ops::sum(r.loss), static_cast<double>(r.loss.size())) : r.loss;
        return {out.astype(xs[0].dtype())};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const std::vector<Variable> g = std::make_shared<CTCGrad>(grad_, mean_, input_dtype(0))->apply({gys[0]});
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(g[static_cast<size_t>(i)]);
        return gxs;
    }
    std::string label() const override { return "ConnectionistTemporalClassification"; }

private:
    Array t_, input_length_, label_length_;
    int64_t blank_;
    bool mean_;
    Array grad_;  // (T, B, V) float64
};

void check_scores(const std::vector<Variable>& x) {
    constexpr std::string_view kName = "connectionist_temporal_classification";
    RENSA_CHECK(!x.empty(), ValueError, kName, ": x must be a non-empty list of Variables");
    for (size_t i = 0; i < x.size(); ++i) {
        const std::string name = "x[" + std::to_string(i) + "]";
        expect_float(x[i], kName, name);
        expect_ndim(x[i], 2, kName, name);
        expect_same_dtype(x[0], x[i], kName, "x[0]", name);
        expect_same_shape(x[0], x[i], kName, "x[0]", name);
    }
}

// An optional (B,) length vector (default `fill`); checked within [0, high] when it is on
// the host (device lengths are clamped on the device, Note [CTC on devices]).
Array lengths(const Variable& v, std::string_view name, int64_t B, int64_t fill, int64_t high, Device device) {
    constexpr std::string_view kName = "connectionist_temporal_classification";
    if (!v.defined()) return ops::full({B}, fill, Dtype::kInt64, device);
    expect_integer(v, kName, name);
    RENSA_CHECK(v.shape() == Shape{B}, DimensionError, kName, ": Expect: ", name, ".shape == (", B,
                ",), Actual: ", v.shape());
    detail::check_loss_labels(kName, name, v.array(), high + 1);
    return v.array();
}

// Labels inside label_length must be in [0, V) and not blank; checked when t and the
// lengths are on the host (See Note [Device index wrap]).
void check_labels(const Array& t, const Array& label_length, int64_t V, int64_t blank) {
    if (t.device().kind != DeviceKind::kNative || label_length.device().kind != DeviceKind::kNative) return;
    const std::vector<int64_t> labels = t.to_vector<int64_t>(), lengths = label_length.to_vector<int64_t>();
    const int64_t L = t.shape()[1];
    for (size_t b = 0; b < lengths.size(); ++b) {
        for (int64_t i = 0; i < lengths[b]; ++i) {
            const int64_t v = labels[b * static_cast<size_t>(L) + static_cast<size_t>(i)];
            RENSA_CHECK(v >= 0 && v < V && v != blank, ValueError, "connectionist_temporal_classification: label t[", b,
                        ", ", i, "] is ", v, ", outside [0, ", V, ") or equal to blank_symbol ", blank);
        }
    }
}

}  // namespace

Variable connectionist_temporal_classification(const std::vector<Variable>& x, const Variable& t, int64_t blank_symbol,
                                               const CTCOptions& options) {
    constexpr std::string_view kName = "connectionist_temporal_classification";
    detail::check_loss_reduce(kName, options.reduce, {"mean", "no"});
    check_scores(x);
    expect_integer(t, kName, "t");
    const int64_t T = static_cast<int64_t>(x.size()), B = x[0].shape()[0], V = x[0].shape()[1];
    RENSA_CHECK(t.ndim() == 2 && t.shape()[0] == B, DimensionError, kName, ": Expect: t.shape == (", B,
                ", L), Actual: ", t.shape());
    RENSA_CHECK(blank_symbol >= 0 && blank_symbol < V, ValueError, kName, ": blank_symbol ", blank_symbol,
                " is outside [0, ", V, ")");
    const int64_t L = t.shape()[1];
    const Device device = x[0].device();
    const Array input_length = lengths(options.input_length, "input_length", B, T, T, device);
    const Array label_length = lengths(options.label_length, "label_length", B, L, L, t.device());
    check_labels(t.array(), label_length, V, blank_symbol);
    return std::make_shared<ConnectionistTemporalClassification>(t.array(), input_length, label_length, blank_symbol,
                                                                 options.reduce == "mean")
        ->apply(x)[0];
}

}  // namespace rensa::functions
