// sum, mean, prod, logsumexp and cumsum.

#include <limits>
#include <memory>
#include <utility>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/elementwise.h"
#include "core/ops/manipulation.h"
#include "core/ops/reduction.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

// gy of a reduction, reshaped to the keepdims shape and broadcast back to x's shape.
Variable spread(const Variable& gy, const Shape& x_shape, const std::optional<Axes>& axes) {
    return broadcast_to(reshape(gy, math_detail::kept_shape(x_shape, axes, "backward")), x_shape);
}

// For each element, the product of the other elements of its reduction (exact with
// zeros): y / x without zeros, else the product of the nonzeros for a lone zero and 0
// everywhere else.
Array others_product(const Array& x, const Array& is_zero, const std::optional<Axes>& axes) {
    const Array nonzero = ops::where(is_zero, 1, x);
    const Array p = ops::prod(nonzero, axes, true).astype(x.dtype(), false);
    const Array zeros = ops::sum(is_zero, axes, true);
    const Array lone_zero = ops::logical_and(is_zero, ops::equal(zeros, 1));
    return ops::where(ops::equal(zeros, 0), ops::divide(p, nonzero), ops::where(lone_zero, p, 0)).astype(x.dtype());
}

// y = prod(x); gx = gy * y / x, differentiable again when x has no zeros; with zeros the
// product of the others is used as a constant (no double backprop through it).
class Prod : public FunctionNode {
public:
    Prod(std::optional<Axes> axes, bool keepdims) : axes_{std::move(axes)}, keepdims_{keepdims} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        retain_outputs({0});
        return {ops::prod(xs[0], axes_, keepdims_).astype(xs[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Shape& x_shape = input_shape(0);
        const Variable x = retained_input(0);
        const Array is_zero = ops::equal(x.array(), 0);
        if (!ops::any(is_zero).item<bool>()) return {spread(gys[0] * retained_output(0), x_shape, axes_) / x};
        return {spread(gys[0], x_shape, axes_) * Variable(others_product(x.array(), is_zero, axes_), false)};
    }
    std::string label() const override { return "Prod"; }

private:
    std::optional<Axes> axes_;
    bool keepdims_;
};

// y = log(sum(exp(x))); gx = gy * exp(x - y).
class LogSumExp : public FunctionNode {
public:
    explicit LogSumExp(std::optional<Axes> axes) : axes_{std::move(axes)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        retain_outputs({0});
        return {ops::logsumexp(xs[0], axes_).astype(xs[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Shape& x_shape = input_shape(0);
        const Variable y = spread(retained_output(0), x_shape, axes_);
        return {spread(gys[0], x_shape, axes_) * exp(retained_input(0) - y)};
    }
    std::string label() const override { return "LogSumExp"; }

private:
    std::optional<Axes> axes_;
};

class ReverseCumsum;

// Inclusive prefix sum along axis_ (of the flattened x without one); its gradient is the
// reverse prefix sum, whose gradient is this again.
class Cumsum : public FunctionNode {
public:
    explicit Cumsum(std::optional<int> axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        return {ops::cumsum(xs[0], axis_).astype(xs[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "Cumsum"; }

private:
    std::optional<int> axis_;
};

class ReverseCumsum : public FunctionNode {
public:
    explicit ReverseCumsum(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& gs) override {
        const Axes axes{axis_};
        return {ops::flip(ops::cumsum(ops::flip(gs[0], axes), axis_), axes).astype(gs[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {math_detail::apply1<Cumsum>({ggs[0]}, axis_)};
    }
    std::string label() const override { return "ReverseCumsum"; }

private:
    int axis_;
};

std::vector<Variable> Cumsum::backward(const Indexes&, const std::vector<Variable>& gys) {
    const Variable gx = math_detail::apply1<ReverseCumsum>({gys[0]}, axis_.value_or(0));
    return {axis_ ? gx : reshape(gx, input_shape(0))};
}

std::optional<Axes> one_axis(int axis) { return Axes{axis}; }

}  // namespace

Variable sum(const Variable& x, int axis, bool keepdims) {
    expect_float(x, "sum", "x");
    return rensa::sum(x, one_axis(axis), keepdims);
}

Variable mean(const Variable& x, const std::optional<Axes>& axis, bool keepdims) {
    expect_float(x, "mean", "x");
    int64_t n = 1;  // elements per reduction
    for (int a : axis ? normalize_axes(*axis, x.ndim(), "mean") : all_axes(x.ndim())) n *= x.shape()[a];
    const double inverse = n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
    return rensa::sum(x, axis, keepdims) * inverse;
}
Variable mean(const Variable& x, int axis, bool keepdims) { return mean(x, one_axis(axis), keepdims); }

Variable prod(const Variable& x, const std::optional<Axes>& axis, bool keepdims) {
    expect_float(x, "prod", "x");
    return math_detail::apply1<Prod>({x}, axis, keepdims);
}
Variable prod(const Variable& x, int axis, bool keepdims) { return prod(x, one_axis(axis), keepdims); }

Variable logsumexp(const Variable& x, const std::optional<Axes>& axis) {
    expect_float(x, "logsumexp", "x");
    return math_detail::apply1<LogSumExp>({x}, axis);
}
Variable logsumexp(const Variable& x, int axis) { return logsumexp(x, one_axis(axis)); }

Variable cumsum(const Variable& x, std::optional<int> axis) {
    expect_float(x, "cumsum", "x");
    if (axis) axis = normalize_axis(*axis, x.ndim(), "cumsum");
    return math_detail::apply1<Cumsum>({x}, axis);
}

}  // namespace rensa::functions
