#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

// y = log(1 + exp(beta * x)) / beta = (max(bx, 0) + log1p(exp(-|bx|))) / beta, which
// never overflows; gx = gy * sigmoid(beta * x).
class Softplus : public FunctionNode {
public:
    explicit Softplus(double beta) : beta_{beta} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        const Array bx = ops::multiply(xs[0], beta_);
        const Array soft = ops::log1p(ops::exp(ops::negative(ops::abs(bx))));
        return {ops::divide(ops::add(ops::maximum(bx, 0), soft), beta_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] * sigmoid(beta_ * retained_input(0))};
    }
    std::string label() const override { return "Softplus"; }
    Attributes attributes() const override { return {{"beta", beta_}}; }

private:
    double beta_;
};

}  // namespace

Variable softplus(const Variable& x, double beta) {
    expect_float(x, "softplus", "x");
    RENSA_CHECK(beta != 0, ValueError, "softplus: Expect: beta != 0, Actual: beta = 0");
    return std::make_shared<Softplus>(beta)->apply({x})[0];
}

}  // namespace rensa::functions
