// transpose, swapaxes, flip (view nodes whose backward is the same kind of view) and
// expand_dims, squeeze, flatten, broadcast (compositions of reshape / broadcast_to).

#include <algorithm>
#include <memory>

#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"

namespace rensa::functions {
namespace {

class Transpose : public FunctionNode {
public:
    explicit Transpose(Axes axes) : axes_{std::move(axes)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0].transpose(axes_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        Axes inverse(axes_.size(), 0);
        for (int i = 0; i < axes_.size(); ++i) inverse[axes_[i]] = i;
        return {transpose(gys[0], inverse)};
    }
    std::string label() const override { return "Transpose"; }
    Attributes attributes() const override { return {{"axes", std::vector<int64_t>(axes_.begin(), axes_.end())}}; }

private:
    Axes axes_;
};

class Flip : public FunctionNode {
public:
    explicit Flip(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::flip(xs[0], Axes{axis_})}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {flip(gys[0], axis_)};
    }
    std::string label() const override { return "Flip"; }
    Attributes attributes() const override { return {{"axis", int64_t{axis_}}}; }

private:
    int axis_;
};

int check_axis(std::string_view op, const char* name, const Variable& x, int axis, int ndim) {
    RENSA_CHECK(axis >= -ndim && axis < ndim, DimensionError, op, ": Expect: -", ndim, " <= ", name, " < ", ndim,
                ", Actual: ", name, " = ", axis, " for x of shape ", x.shape());
    return axis < 0 ? axis + ndim : axis;
}

}  // namespace

Variable transpose(const Variable& x) {
    Axes axes;
    for (int i = x.ndim() - 1; i >= 0; --i) axes.push_back(i);
    return transpose(x, axes);
}

Variable transpose(const Variable& x, const Axes& axes) {
    RENSA_CHECK(axes.size() == x.ndim(), DimensionError,
                "transpose: Expect: len(axes) == x.ndim, Actual: ", axes.size(), " != ", x.ndim(), " (axes ", axes,
                ")");
    const Axes normalized = normalize_axes(axes, x.ndim(), "transpose");
    return std::make_shared<Transpose>(normalized)->apply({x})[0];
}

Variable swapaxes(const Variable& x, int axis1, int axis2) {
    const int a = check_axis("swapaxes", "axis1", x, axis1, x.ndim());
    const int b = check_axis("swapaxes", "axis2", x, axis2, x.ndim());
    Axes axes = all_axes(x.ndim());
    std::swap(axes[a], axes[b]);
    return transpose(x, axes);
}

Variable flip(const Variable& x, int axis) {
    return std::make_shared<Flip>(check_axis("flip", "axis", x, axis, x.ndim()))->apply({x})[0];
}

Variable expand_dims(const Variable& x, int axis) {
    const int a = check_axis("expand_dims", "axis", x, axis, x.ndim() + 1);
    Shape shape = x.shape();
    shape.insert(a, 1);
    return reshape(x, shape);
}

Variable squeeze(const Variable& x) {
    Shape shape;
    for (int64_t n : x.shape()) {
        if (n != 1) shape.push_back(n);
    }
    return reshape(x, shape);
}

Variable squeeze(const Variable& x, const Axes& axis) {
    const Axes axes = normalize_axes(axis, x.ndim(), "squeeze");
    Shape shape;
    for (int d = 0; d < x.ndim(); ++d) {
        const bool drop = std::find(axes.begin(), axes.end(), d) != axes.end();
        RENSA_CHECK(!drop || x.shape()[d] == 1, DimensionError,
                    "squeeze: cannot select an axis to squeeze out which has ", "size not equal to one: axis ", d,
                    " of shape ", x.shape());
        if (!drop) shape.push_back(x.shape()[d]);
    }
    return reshape(x, shape);
}

Variable squeeze(const Variable& x, int axis) { return squeeze(x, Axes{axis}); }

Variable flatten(const Variable& x) { return reshape(x, {x.size()}); }

std::vector<Variable> broadcast(const std::vector<Variable>& xs) {
    RENSA_CHECK(!xs.empty(), ValueError, "broadcast: xs must not be empty");
    Shape shape = xs[0].shape();
    for (const Variable& x : xs) shape = broadcast_shapes(shape, x.shape(), "broadcast");
    std::vector<Variable> ys;
    for (const Variable& x : xs) ys.push_back(broadcast_to(x, shape));
    return ys;
}

}  // namespace rensa::functions
