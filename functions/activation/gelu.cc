#include <cmath>

#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

// Phi(x), the standard normal CDF, on arrays.
Array normal_cdf(const Array& x) { return ops::multiply(ops::add(ops::erf(ops::multiply(x, kInvSqrt2)), 1), 0.5); }

// d = Phi(x) + x * phi(x), the derivative of GELU; its own derivative phi(x) * (2 - x^2)
// is built from Variables, so every order of backprop follows.
class GELUDerivative : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        const Array& x = xs[0];
        const Array pdf = ops::multiply(ops::exp(ops::multiply(ops::square(x), -0.5)), kInvSqrt2Pi);
        return {ops::add(normal_cdf(x), ops::multiply(x, pdf))};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0);
        const Variable pdf = kInvSqrt2Pi * exp(-0.5 * x * x);
        return {gys[0] * pdf * (2.0 - x * x)};
    }
    std::string label() const override { return "GELUDerivative"; }
};

// y = x * Phi(x).
class GELU : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::multiply(xs[0], normal_cdf(xs[0]))};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] * std::make_shared<GELUDerivative>()->apply({retained_input(0)})[0]};
    }
    std::string label() const override { return "GELU"; }
};

}  // namespace

Variable gelu(const Variable& x) {
    expect_float(x, "gelu", "x");
    return std::make_shared<GELU>()->apply({x})[0];
}

}  // namespace rensa::functions
