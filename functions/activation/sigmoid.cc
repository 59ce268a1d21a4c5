#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/common.h"

namespace rensa::functions {
namespace {

// y = 1 / (1 + exp(-x)); gx = gy * y * (1 - y), built from y so double backprop follows.
class Sigmoid : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::sigmoid(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable y = retained_output(0);
        return {gys[0] * y * (1.0 - y)};
    }
    std::string label() const override { return "Sigmoid"; }
};

}  // namespace

Variable sigmoid(const Variable& x) {
    activation_detail::check_float_input("sigmoid", "x", x);
    return std::make_shared<Sigmoid>()->apply({x})[0];
}

}  // namespace rensa::functions
