// elu and selu (= scale * elu).

#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

using activation_detail::constant;

// y = x where x > 0, alpha * (exp(x) - 1) elsewhere.
class ELU : public FunctionNode {
public:
    explicit ELU(double alpha) : alpha_{alpha} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        const Array& x = xs[0];
        return {ops::where(ops::greater(x, 0), x, ops::multiply(ops::expm1(x), alpha_))};
    }
    // gx = gy * (pos + neg * alpha * exp(x * neg)): x * neg keeps exp from overflowing on
    // the positive side while staying differentiable in x.
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0);
        const Array pos = ops::greater(x.array(), 0).astype(x.dtype());
        const Variable neg = constant(ops::subtract(1, pos));
        return {gys[0] * (constant(pos) + alpha_ * neg * exp(x * neg))};
    }
    std::string label() const override { return "ELU"; }
    Attributes attributes() const override { return {{"alpha", alpha_}}; }

private:
    double alpha_;
};

}  // namespace

Variable elu(const Variable& x, double alpha) {
    expect_float(x, "elu", "x");
    return std::make_shared<ELU>(alpha)->apply({x})[0];
}

Variable selu(const Variable& x, double alpha, double scale) {
    expect_float(x, "selu", "x");
    return scale * elu(x, alpha);
}

}  // namespace rensa::functions
