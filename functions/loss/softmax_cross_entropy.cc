// softmax_cross_entropy (Chainer's semantics). The default path is one fused node on the
// softmax kernel: softmax and a gather forward, (softmax - onehot) * weight backward,
// whose own gradient is not implemented (Chainer's is an old-style function). With
// enable_double_backprop the loss is composed of differentiable functions instead.

#include <algorithm>
#include <optional>
#include <sstream>
#include <string_view>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "core/ops/reduction.h"
#include "core/ops/softmax.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

Dtype compute_dtype(Dtype x) { return x == Dtype::kFloat16 || x == Dtype::kBFloat16 ? Dtype::kFloat32 : x; }

// What forward and backward share: which logits the labels pick and how much each counts.
struct Picks {
    Array flat;    // int64 (t.size): flat index in x of each sample's labelled logit
    Array weight;  // compute dtype (t's shape): class weight of the label, 0 where ignored
    Array coeff;   // 0-d, compute dtype; reduce "mean": 1 / max(count, 1)
};

// t as an int64 array with ignored labels replaced by 0, and the flat indices it picks.
// `count` is the divisor of reduce "mean" when known on the host; unset, it is the number of
// non-ignored labels counted on t's device.
Picks make_picks(const Array& x, const Array& t, const SoftmaxCrossEntropyOptions& o, std::optional<int64_t> count) {
    const Dtype cd = compute_dtype(x.dtype());
    const Array valid = ops::not_equal(t, o.ignore_label);
    const Array tc = ops::where(valid, t.astype(Dtype::kInt64, false), 0);
    const int64_t c = x.shape()[1], rest = t.ndim() > 1 ? shape_size(t.shape()) / t.shape()[0] : 1;
    const Array j = ops::arange(t.size(), Dtype::kInt64, x.device());
    Array flat = ops::multiply(tc.reshape({t.size()}), rest);
    if (rest == 1) {
        flat = ops::add(flat, ops::multiply(j, c));
    } else {
        flat = ops::add(flat, ops::add(ops::multiply(ops::floor_divide(j, rest), c * rest), ops::mod(j, rest)));
    }
    Array weight = valid.astype(cd);
    if (o.class_weight.defined()) weight = ops::multiply(weight, ops::take(o.class_weight.astype(cd, false), tc));
    const Array coeff = count ? ops::full({}, 1.0 / static_cast<double>(std::max<int64_t>(*count, 1)), cd, x.device())
                              : ops::divide(1.0, ops::maximum(ops::sum(valid.astype(cd)), 1.0)).astype(cd, false);
    return {flat, weight, coeff};
}

// gx = (softmax(x) - onehot(t)) * weight * scale, per sample; the fused node's gradient.
class SoftmaxCrossEntropyGrad : public FunctionNode {
public:
    SoftmaxCrossEntropyGrad(Dtype dtype, Array x, Array y, Picks picks, bool mean)
        : dtype_{dtype}, x_{std::move(x)}, y_{std::move(y)}, picks_{std::move(picks)}, mean_{mean} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Dtype cd = compute_dtype(dtype_);
        const Array y = y_.defined() ? y_ : ops::softmax(x_.astype(cd, false), 1);
        Array scale = ops::multiply(picks_.weight, in[0].astype(cd, false));
        if (mean_) scale = ops::multiply(scale, picks_.coeff);
        Shape bshape = picks_.weight.shape();
        bshape.insert(1, 1);
        const Array gx = ops::multiply(y, scale.reshape(bshape));
        ops::scatter_add(gx.reshape({gx.size()}), picks_.flat, ops::negative(scale).reshape({scale.size()}));
        return {gx.astype(dtype_, false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        RENSA_THROW(NotImplementedError,
                    "softmax_cross_entropy: the gradient is not differentiable; pass "
                    ".enable_double_backprop = true for double backprop");
    }
    std::string label() const override { return "SoftmaxCrossEntropyGrad"; }

private:
    Dtype dtype_;  // x's
    Array x_, y_;  // y_: cached softmax(x), or undefined (recomputed from x_)
    Picks picks_;
    bool mean_;
};

class SoftmaxCrossEntropy : public FunctionNode {
public:
    SoftmaxCrossEntropy(SoftmaxCrossEntropyOptions options, std::optional<int64_t> count)
        : options_{std::move(options)}, count_{count} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Array& x = in[0];
        const Array& t = in[1];
        const Array xc = x.astype(compute_dtype(x.dtype()), false);
        picks_ = make_picks(x, t, options_, count_);
        // log_softmax at the labels without a second pass over x: max(y) = 1 / sum(exp(x -
        // max(x))), so logsumexp(x) = max(x) - log(max(y)).
        const Array y = ops::softmax(xc, 1);
        const Array lse = ops::subtract(ops::max(xc, Axes{1}), ops::log(ops::max(y, Axes{1})));
        const Array log_p = ops::subtract(ops::take(xc, picks_.flat).reshape(t.shape()), lse);
        if (options_.cache_score) {
            y_ = y;
        } else {
            x_ = x;
        }
        const Array loss = ops::multiply(log_p, picks_.weight);
        if (options_.reduce == "no") return {ops::negative(loss).astype(x.dtype(), false)};
        return {ops::multiply(ops::sum(loss), ops::negative(picks_.coeff)).astype(x.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        auto grad =
            std::make_shared<SoftmaxCrossEntropyGrad>(input_dtype(0), x_, y_, picks_, options_.reduce == "mean");
        return {grad->apply({gys[0]})[0], Variable()};
    }
    std::string label() const override { return "SoftmaxCrossEntropy"; }

private:
    SoftmaxCrossEntropyOptions options_;
    std::optional<int64_t> count_;
    Picks picks_;
    Array x_, y_;
};

// Chainer's _double_backward_softmax_cross_entropy: -log_softmax(x) weighted by a
// constant one-hot array, summed over the classes.
Variable double_backprop_loss(const Variable& x, const Variable& t, const SoftmaxCrossEntropyOptions& o,
                              std::optional<int64_t> count) {
    const Picks picks = make_picks(x.array(), t.array(), o, count);
    const Array onehot = ops::zeros({x.size()}, x.dtype(), x.device());
    ops::scatter_add(onehot, picks.flat, picks.weight.reshape({t.size()}));
    const Variable z = x - Variable(ops::max(x.array(), Axes{1}, true), false);
    const Variable log_y = z - log(sum(exp(z), Axes{1}, true));
    const Variable loss = -sum(log_y * Variable(onehot.reshape(x.shape()), false), Axes{1});
    if (o.reduce == "no") return loss;
    return sum(loss) * Variable(picks.coeff.astype(x.dtype(), false), false);
}

std::string position(int64_t flat, const Shape& shape) {
    std::ostringstream os;
    os << "t[";
    int64_t rem = flat;
    std::vector<int64_t> idx(static_cast<size_t>(shape.size()));
    for (int d = shape.size() - 1; d >= 0; --d) {
        idx[static_cast<size_t>(d)] = shape[d] > 0 ? rem % shape[d] : 0;
        rem = shape[d] > 0 ? rem / shape[d] : 0;
    }
    for (size_t d = 0; d < idx.size(); ++d) os << (d ? ", " : "") << idx[d];
    os << "]";
    return os.str();
}

// Validates every label (reading t on the host) and returns the non-ignored count.
int64_t check_labels(const Array& t, int64_t classes, int64_t ignore_label) {
    const std::vector<int64_t> labels = t.to_vector<int64_t>();
    int64_t count = 0;
    for (size_t i = 0; i < labels.size(); ++i) {
        const int64_t v = labels[i];
        if (v == ignore_label) continue;
        RENSA_CHECK(v >= 0 && v < classes, ValueError, "softmax_cross_entropy: label ", v, " at ",
                    position(static_cast<int64_t>(i), t.shape()),
                    " is out of range: each label t must satisfy 0 <= t < ", classes,
                    " (x.shape[1]) or t == ", ignore_label, " (ignore_label)");
        ++count;
    }
    return count;
}

void check_inputs(const Variable& x, const Variable& t, const SoftmaxCrossEntropyOptions& o) {
    expect_float(x, "softmax_cross_entropy", "x");
    expect_signed_integer(t, "softmax_cross_entropy", "t");
    RENSA_CHECK(x.ndim() >= 2 && t.ndim() == x.ndim() - 1, DimensionError,
                "softmax_cross_entropy: Expect: t.ndim == x.ndim - 1 and x.ndim >= 2, Actual: x.shape=", x.shape(),
                ", t.shape=", t.shape());
    Shape expected = x.shape();
    expected.erase(1);
    RENSA_CHECK(t.shape() == expected, DimensionError, "softmax_cross_entropy: Expect: t.shape == ", expected,
                " (x.shape without axis 1), Actual: ", t.shape());
    RENSA_CHECK(o.reduce == "mean" || o.reduce == "no", ValueError,
                "softmax_cross_entropy: only 'mean' and 'no' are valid for 'reduce', but '", o.reduce, "' is given");
    if (o.class_weight.defined()) {
        const Variable class_weight(o.class_weight, false);
        expect_shape(class_weight, Shape{x.shape()[1]}, "softmax_cross_entropy", "class_weight");
        expect_float(class_weight, "softmax_cross_entropy", "class_weight");
    }
}

}  // namespace

Variable softmax_cross_entropy(const Variable& x, const Variable& t, const SoftmaxCrossEntropyOptions& options) {
    RENSA_CHECK(options.soft_target_loss == "cross-entropy" || options.soft_target_loss == "kl-divergence", ValueError,
                "softmax_cross_entropy: soft_target_loss must be 'cross-entropy' or 'kl-divergence', but '",
                options.soft_target_loss, "' is given");
    expect_defined(x, "softmax_cross_entropy", "x");
    expect_defined(t, "softmax_cross_entropy", "t");
    if (is_float(t.dtype())) {
        RENSA_CHECK(options.reduce == "mean" || options.reduce == "no", ValueError,
                    "softmax_cross_entropy: only 'mean' and 'no' are valid for 'reduce', but '", options.reduce,
                    "' is given");
        return detail::soft_target_softmax_cross_entropy(x, t, options);
    }
    check_inputs(x, t, options);
    // Labels on the host are checked and counted there; labels on a device are neither read
    // back nor checked (See Note [Device index wrap]) and are counted on the device.
    std::optional<int64_t> count;
    if (!options.normalize) {
        count = x.shape()[0];
        if (t.device().kind == DeviceKind::kNative) (void)check_labels(t.array(), x.shape()[1], options.ignore_label);
    } else if (t.device().kind == DeviceKind::kNative) {
        count = check_labels(t.array(), x.shape()[1], options.ignore_label);
    }
    if (options.enable_double_backprop) return double_backprop_loss(x, t, options, count);
    return std::make_shared<SoftmaxCrossEntropy>(options, count)->apply({x, t})[0];
}

}  // namespace rensa::functions
