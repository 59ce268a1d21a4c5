// max, min, argmax, argmin, maximum, minimum and clip: their gradients are masks.

#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/dtype.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

// gy * mask with a constant mask: linear in gy, so its own gradient is itself.
Variable masked(const Variable& gy, const Array& mask) { return gy * Variable(mask.astype(gy.dtype()), false); }

// Max (is_max_) or min over axes; the gradient goes to every element equal to the result.
class Extremum : public FunctionNode {
public:
    Extremum(bool is_max, std::optional<Axes> axes, bool keepdims)
        : is_max_{is_max}, axes_{std::move(axes)}, keepdims_{keepdims} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        retain_outputs({0});
        return {is_max_ ? ops::max(xs[0], axes_, keepdims_) : ops::min(xs[0], axes_, keepdims_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Shape& x_shape = input_shape(0);
        const Shape kept = math_detail::kept_shape(x_shape, axes_, label());
        const Array y = retained_output(0).array().reshape(kept);
        const Array mask = ops::equal(retained_input(0).array(), y);
        return {masked(broadcast_to(reshape(gys[0], kept), x_shape), mask)};
    }
    std::string label() const override { return is_max_ ? "Max" : "Min"; }
    Attributes attributes() const override {
        Attributes a;
        if (axes_) a.emplace_back("axis", std::vector<int64_t>((*axes_).begin(), (*axes_).end()));
        a.emplace_back("keepdims", keepdims_);
        return a;
    }

private:
    bool is_max_;
    std::optional<Axes> axes_;
    bool keepdims_;
};

// Elementwise maximum / minimum with broadcasting: x1 takes the gradient where it wins
// or ties, x2 elsewhere.
class Choose : public FunctionNode {
public:
    explicit Choose(bool is_max) : is_max_{is_max} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {is_max_ ? ops::maximum(xs[0], xs[1]) : ops::minimum(xs[0], xs[1])};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Array x1 = retained_input(0).array(), x2 = retained_input(1).array();
        const Array first = is_max_ ? ops::greater_equal(x1, x2) : ops::less_equal(x1, x2);
        std::vector<Variable> gxs;
        for (int i : targets) {
            const Array mask = i == 0 ? first : ops::logical_not(first);
            gxs.push_back(sum_to(masked(gys[0], mask), input_shape(i)));
        }
        return gxs;
    }
    std::string label() const override { return is_max_ ? "Maximum" : "Minimum"; }

private:
    bool is_max_;
};

class Clip : public FunctionNode {
public:
    Clip(double lo, double hi) : lo_{lo}, hi_{hi} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::clip(xs[0], lo_, hi_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Array x = retained_input(0).array();
        return {masked(gys[0], ops::logical_and(ops::greater_equal(x, lo_), ops::less_equal(x, hi_)))};
    }
    std::string label() const override { return "Clip"; }
    Attributes attributes() const override { return {{"x_min", lo_}, {"x_max", hi_}}; }

private:
    double lo_, hi_;
};

Variable extremum(const char* name, bool is_max, const Variable& x, const std::optional<Axes>& axis, bool keepdims) {
    expect_float(x, name, "x");
    if (axis) (void)normalize_axes(*axis, x.ndim(), name);
    return math_detail::apply1<Extremum>({x}, is_max, axis, keepdims);
}

Variable arg_extremum(const char* name, bool is_max, const Variable& x, std::optional<int> axis) {
    expect_float(x, name, "x");
    if (axis) axis = normalize_axis(*axis, x.ndim(), name);
    const Array index = is_max ? ops::argmax(x.array(), axis) : ops::argmin(x.array(), axis);
    return Variable(index.astype(Dtype::kInt32), false);
}

Variable choose(const char* name, bool is_max, const Variable& x1, const Variable& x2) {
    expect_same_float(x1, x2, name, "x1", "x2");
    (void)broadcast_shapes(x1.shape(), x2.shape(), name);
    return math_detail::apply1<Choose>({x1, x2}, is_max);
}

}  // namespace

Variable max(const Variable& x, const std::optional<Axes>& axis, bool keepdims) {
    return extremum("max", true, x, axis, keepdims);
}
Variable max(const Variable& x, int axis, bool keepdims) { return max(x, Axes{axis}, keepdims); }
Variable min(const Variable& x, const std::optional<Axes>& axis, bool keepdims) {
    return extremum("min", false, x, axis, keepdims);
}
Variable min(const Variable& x, int axis, bool keepdims) { return min(x, Axes{axis}, keepdims); }

Variable argmax(const Variable& x, std::optional<int> axis) { return arg_extremum("argmax", true, x, axis); }
Variable argmin(const Variable& x, std::optional<int> axis) { return arg_extremum("argmin", false, x, axis); }

Variable maximum(const Variable& x1, const Variable& x2) { return choose("maximum", true, x1, x2); }
Variable minimum(const Variable& x1, const Variable& x2) { return choose("minimum", false, x1, x2); }

Variable clip(const Variable& x, std::optional<double> x_min, std::optional<double> x_max) {
    expect_float(x, "clip", "x");
    RENSA_CHECK(x_min || x_max, ValueError, "clip: at least one of x_min and x_max must be given");
    RENSA_CHECK(!x_min || !x_max || *x_min < *x_max, ValueError,
                "clip: x_min must be less than x_max, got x_min=", *x_min, ", x_max=", *x_max);
    const double inf = std::numeric_limits<double>::infinity();
    return math_detail::apply1<Clip>({x}, x_min.value_or(-inf), x_max.value_or(inf));
}

}  // namespace rensa::functions
