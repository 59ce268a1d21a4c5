// cumprod, with Chainer's gradient through a "cumulative product-sum" that stays exact when
// x holds zeros (no division by x).

#include <memory>
#include <string>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/ops/creation.h"
#include "core/ops/operators.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

// y[0] = add[0], y[i] = y[i - 1] * mul[i - 1] + add[i] along axis 0 (mul is one shorter);
// with cumprod_of_add, y = cumprod(add) and mul is unused. A loop of elementwise ops over
// the axis, as Chainer's forward.
Array prodsum_axis0(const Array& mul, const Array& add, bool cumprod_of_add) {
    const Array y = Array::empty(add.shape(), add.dtype(), add.device());
    if (add.shape()[0] == 0) return y;
    Array running = add.index({0}).copy();
    y.index({0}).assign(running);
    for (int64_t i = 1; i < add.shape()[0]; ++i) {
        running = cumprod_of_add ? running * add.index({i}) : running * mul.index({i - 1}) + add.index({i});
        y.index({i}).assign(running);
    }
    return y;
}

// The loop along `axis` instead of 0.
Array prodsum(const Array& mul, const Array& add, int axis, bool cumprod_of_add) {
    const Array m = mul.defined() ? mul.swapaxes(0, axis) : mul;
    return prodsum_axis0(m, add.swapaxes(0, axis), cumprod_of_add).swapaxes(0, axis).as_contiguous();
}

Variable flip_prodsum(const Variable& mul, const Variable& add, int axis);

// Chainer's Cumprodsum: inputs (mul, add) with mul one shorter along axis.
class Cumprodsum : public FunctionNode {
public:
    explicit Cumprodsum(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        retain_outputs({0});
        return {prodsum(xs[0], xs[1], axis_, false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable mul = retained_input(0);
        const Variable y = retained_output(0);
        const Variable gadd = flip_prodsum(mul, gys[0], axis_);
        const int64_t len = y.shape()[axis_];
        const Variable gmul = split_axis(gadd, std::vector<int64_t>{1}, axis_)[1] *
                              split_axis(y, std::vector<int64_t>{len - 1}, axis_)[0];
        return {gmul, gadd};
    }
    std::string label() const override { return "Cumprodsum"; }

private:
    int axis_;
};

// z reversed along axis, with z = Cumprodsum(flip(mul), flip(add)): the reverse recurrence.
Variable flip_prodsum(const Variable& mul, const Variable& add, int axis) {
    return flip(math_detail::apply1<Cumprodsum>({flip(mul, axis), flip(add, axis)}, axis), axis);
}

// y = cumprod(x) along axis_; gx[i] = y[i - 1] * sum_{j >= i} gy[j] prod_{i < k <= j} x[k]
// (y[-1] = 1), exact with zeros.
class Cumprod : public FunctionNode {
public:
    explicit Cumprod(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        retain_outputs({0});
        return {prodsum(Array{}, xs[0], axis_, true)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0);
        const Variable y = retained_output(0);
        const int64_t len = y.shape()[axis_];
        if (len <= 1) return {gys[0]};
        const Variable gx = flip_prodsum(split_axis(x, std::vector<int64_t>{1}, axis_)[1], gys[0], axis_);
        const std::vector<Variable> y_parts = split_axis(y, std::vector<int64_t>{len - 1}, axis_);
        const Variable ones(ops::ones(y_parts[1].shape(), y.dtype(), y.device()), false);
        return {gx * concat({ones, y_parts[0]}, axis_)};
    }
    std::string label() const override { return "Cumprod"; }

private:
    int axis_;
};

}  // namespace

Variable cumprod(const Variable& x, std::optional<int> axis) {
    expect_float(x, "cumprod", "x");
    if (!axis) return math_detail::apply1<Cumprod>({flatten(x)}, 0);
    return math_detail::apply1<Cumprod>({x}, normalize_axis(*axis, x.ndim(), "cumprod"));
}

}  // namespace rensa::functions
