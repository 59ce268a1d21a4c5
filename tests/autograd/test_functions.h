#pragma once
// User-defined FunctionNodes for the autograd tests: sin, cos and tanh written the way
// a user (or the functions module) writes them, with differentiable backward.

#include <memory>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"

namespace rensa::test {

Variable sin(const Variable& x);
Variable cos(const Variable& x);
Variable tanh(const Variable& x);

class SinNode : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::sin(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] * cos(retained_input(0))};
    }
};

class CosNode : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::cos(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {-gys[0] * sin(retained_input(0))};
    }
};

class TanhNode : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::tanh(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable y = retained_output(0);
        return {gys[0] * (1.0 - y * y)};
    }
};

inline Variable sin(const Variable& x) { return std::make_shared<SinNode>()->apply({x})[0]; }
inline Variable cos(const Variable& x) { return std::make_shared<CosNode>()->apply({x})[0]; }
inline Variable tanh(const Variable& x) { return std::make_shared<TanhNode>()->apply({x})[0]; }

// A Variable over float64 values.
inline Variable var(const std::vector<double>& values, const Shape& shape, bool requires_grad = true) {
    return Variable(Array::from_vector(values, shape), requires_grad);
}
inline Variable scalar(double value, bool requires_grad = true) { return var({value}, {}, requires_grad); }

}  // namespace rensa::test
