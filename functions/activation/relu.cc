#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"

namespace rensa::functions {
namespace {

// y = max(x, 0); gx = gy * (y > 0), which is linear in gy so double backprop reuses it.
class ReLU : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::maximum(xs[0], 0)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "ReLU"; }
};

// gx = gy where y > 0, else 0 (one pass), with y held constant; its own backward is
// itself with the same y.
class ReLUGrad : public FunctionNode {
public:
    explicit ReLUGrad(Array y) : y_{std::move(y)} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        return {ops::keep_where_positive(gys[0], y_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {std::make_shared<ReLUGrad>(y_)->apply({ggs[0]})[0]};
    }
    std::string label() const override { return "ReLUGrad"; }

private:
    Array y_;
};

std::vector<Variable> ReLU::backward(const Indexes&, const std::vector<Variable>& gys) {
    return {std::make_shared<ReLUGrad>(retained_output(0).array())->apply({gys[0]})[0]};
}

}  // namespace

Variable relu(const Variable& x) {
    expect_float(x, "relu", "x");
    return std::make_shared<ReLU>()->apply({x})[0];
}

}  // namespace rensa::functions
