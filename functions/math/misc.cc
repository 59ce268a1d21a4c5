// squared_difference, linear_interpolate, identity, bias and scale.

#include <memory>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/elementwise.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

class SquaredDifference : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::square(ops::subtract(xs[0], xs[1]))};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Variable gx = gys[0] * 2.0 * (retained_input(0) - retained_input(1));
        std::vector<Variable> gxs;
        for (int i : targets) gxs.push_back(i == 0 ? gx : -gx);
        return gxs;
    }
    std::string label() const override { return "SquaredDifference"; }
};

// p * x + (1 - p) * y, computed as p * (x - y) + y.
class LinearInterpolate : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1, 2});
        return {ops::add(ops::multiply(xs[0], ops::subtract(xs[1], xs[2])), xs[2])};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Variable p = retained_input(0), g = gys[0];
        const Variable pg = p * g;
        std::vector<Variable> gxs;
        for (int i : targets)
            gxs.push_back(i == 0 ? g * (retained_input(1) - retained_input(2)) : i == 1 ? pg : g - pg);
        return gxs;
    }
    std::string label() const override { return "LinearInterpolate"; }
};

class Identity : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override { return xs; }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        for (int i : targets) gxs.push_back(gys[static_cast<size_t>(i)]);
        return gxs;
    }
    std::string label() const override { return "Identity"; }
};

// y reshaped and broadcast to x's shape, its axes aligned with x's from `axis`.
Variable align(const char* function, const Variable& x, const Variable& y, int axis) {
    expect_same_float(x, y, function, "x", "y");
    RENSA_CHECK(axis >= 0 && axis + y.ndim() <= x.ndim(), DimensionError, function, ": axis=", axis,
                " does not fit y.ndim=", y.ndim(), " into x.ndim=", x.ndim());
    Shape aligned(x.ndim(), 1);
    for (int i = 0; i < y.ndim(); ++i) {
        RENSA_CHECK(x.shape()[axis + i] == y.shape()[i], DimensionError, function, ": Expect: x.shape[", axis, ":",
                    axis + y.ndim(), "] == y.shape, Actual: x.shape=", x.shape(), ", y.shape=", y.shape());
        aligned[axis + i] = y.shape()[i];
    }
    return broadcast_to(reshape(y, aligned), x.shape());
}

}  // namespace

Variable squared_difference(const Variable& x1, const Variable& x2) {
    expect_same_float(x1, x2, "squared_difference", "x1", "x2");
    expect_same_shape(x1, x2, "squared_difference", "x1", "x2");
    return math_detail::apply1<SquaredDifference>({x1, x2});
}

Variable linear_interpolate(const Variable& p, const Variable& x, const Variable& y) {
    expect_same_float(p, x, "linear_interpolate", "p", "x");
    expect_same_float(x, y, "linear_interpolate", "x", "y");
    expect_same_shape(p, x, "linear_interpolate", "p", "x");
    expect_same_shape(x, y, "linear_interpolate", "x", "y");
    return math_detail::apply1<LinearInterpolate>({p, x, y});
}

Variable identity(const Variable& x) { return math_detail::apply1<Identity>({x}); }

std::vector<Variable> identity(const std::vector<Variable>& xs) {
    RENSA_CHECK(!xs.empty(), ValueError, "identity: needs at least one input");
    return std::make_shared<Identity>()->apply(xs);
}

Variable bias(const Variable& x, const Variable& y, int axis) { return x + align("bias", x, y, axis); }

Variable scale(const Variable& x, const Variable& y, int axis) { return x * align("scale", x, y, axis); }

}  // namespace rensa::functions
