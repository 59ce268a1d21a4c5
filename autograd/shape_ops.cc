#include "autograd/shape_ops.h"

#include <memory>
#include <utility>

#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/reduction.h"

namespace rensa {

namespace detail {
Array sum_to_array(const Array& x, const Shape& shape) {
    const int lead = x.ndim() - shape.size();
    bool fits = lead >= 0;
    Axes axes;
    for (int i = 0; i < lead; ++i) axes.push_back(i);
    for (int i = 0; fits && i < shape.size(); ++i) {
        const int64_t have = x.shape()[lead + i];
        fits = shape[i] == have || shape[i] == 1;
        if (shape[i] == 1 && have != 1) axes.push_back(lead + i);
    }
    RENSA_CHECK(fits, DimensionError, "sum_to: shape ", x.shape(), " cannot be summed to shape ", shape);
    if (axes.empty()) return x.reshape(shape);
    return ops::sum(x, axes, true).astype(x.dtype(), false).reshape(shape);
}
}  // namespace detail

namespace {

class BroadcastTo : public FunctionNode {
public:
    explicit BroadcastTo(Shape shape) : shape_{std::move(shape)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0].broadcast_to(shape_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {sum_to(gys[0], input_shape(0))};
    }

    Attributes attributes() const override { return {{"shape", std::vector<int64_t>(shape_.begin(), shape_.end())}}; }

private:
    Shape shape_;
};

class SumTo : public FunctionNode {
public:
    explicit SumTo(Shape shape) : shape_{std::move(shape)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {detail::sum_to_array(xs[0], shape_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {broadcast_to(gys[0], input_shape(0))};
    }

    Attributes attributes() const override { return {{"shape", std::vector<int64_t>(shape_.begin(), shape_.end())}}; }

private:
    Shape shape_;
};

class Sum : public FunctionNode {
public:
    Sum(std::optional<Axes> axes, bool keepdims) : axes_{std::move(axes)}, keepdims_{keepdims} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        return {ops::sum(xs[0], axes_, keepdims_).astype(xs[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Shape& x_shape = input_shape(0);
        Variable gy = gys[0];
        if (!keepdims_) {  // put the reduced axes back as length 1
            Shape kept = x_shape;
            const Axes axes = axes_ ? normalize_axes(*axes_, x_shape.size(), "sum") : all_axes(x_shape.size());
            for (int axis : axes) kept[axis] = 1;
            gy = reshape(gy, kept);
        }
        return {broadcast_to(gy, x_shape)};
    }

    Attributes attributes() const override {
        Attributes a;
        if (axes_) a.emplace_back("axis", std::vector<int64_t>((*axes_).begin(), (*axes_).end()));
        a.emplace_back("keepdims", keepdims_);
        return a;
    }

private:
    std::optional<Axes> axes_;
    bool keepdims_;
};

class Reshape : public FunctionNode {
public:
    explicit Reshape(Shape shape) : shape_{std::move(shape)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0].reshape(shape_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {reshape(gys[0], input_shape(0))};
    }

    Attributes attributes() const override { return {{"shape", std::vector<int64_t>(shape_.begin(), shape_.end())}}; }

private:
    Shape shape_;
};

}  // namespace

Variable broadcast_to(const Variable& x, const Shape& shape) {
    if (x.shape() == shape) return x;
    return std::make_shared<BroadcastTo>(shape)->apply({x})[0];
}

Variable sum_to(const Variable& x, const Shape& shape) {
    if (x.shape() == shape) return x;
    return std::make_shared<SumTo>(shape)->apply({x})[0];
}

Variable sum(const Variable& x, const std::optional<Axes>& axes, bool keepdims) {
    return std::make_shared<Sum>(axes, keepdims)->apply({x})[0];
}

Variable reshape(const Variable& x, const Shape& shape) { return std::make_shared<Reshape>(shape)->apply({x})[0]; }

}  // namespace rensa
