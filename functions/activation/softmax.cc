// softmax and log_softmax through the device's softmax kernel (core/ops/softmax.h).

#include "core/ops/softmax.h"
#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

// gx = y * gy - y * sum(y * gy, axis), built from y so double backprop follows.
class Softmax : public FunctionNode {
public:
    explicit Softmax(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::softmax(xs[0], axis_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable y = retained_output(0);
        const Variable ygy = y * gys[0];
        return {ygy - y * sum(ygy, Axes{axis_}, true)};
    }
    std::string label() const override { return "Softmax"; }
    Attributes attributes() const override { return {{"axis", int64_t{axis_}}}; }

private:
    int axis_;
};

// gx = gy - exp(y) * sum(gy, axis).
class LogSoftmax : public FunctionNode {
public:
    explicit LogSoftmax(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::log_softmax(xs[0], axis_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable y = retained_output(0);
        return {gys[0] - exp(y) * sum(gys[0], Axes{axis_}, true)};
    }
    std::string label() const override { return "LogSoftmax"; }
    Attributes attributes() const override { return {{"axis", int64_t{axis_}}}; }

private:
    int axis_;
};

}  // namespace

Variable softmax(const Variable& x, int axis) {
    expect_float(x, "softmax", "x");
    const int ax = normalize_axis(axis, x.ndim(), "softmax");
    return std::make_shared<Softmax>(ax)->apply({x})[0];
}

Variable log_softmax(const Variable& x, int axis) {
    expect_float(x, "log_softmax", "x");
    const int ax = normalize_axis(axis, x.ndim(), "log_softmax");
    return std::make_shared<LogSoftmax>(ax)->apply({x})[0];
}

}  // namespace rensa::functions
