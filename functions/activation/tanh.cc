#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/common.h"

namespace rensa::functions {
namespace {

// y = tanh(x); gx = gy * (1 - y^2), built from y so double backprop follows.
class Tanh : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::tanh(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable y = retained_output(0);
        return {gys[0] * (1.0 - y * y)};
    }
    std::string label() const override { return "Tanh"; }
};

}  // namespace

Variable tanh(const Variable& x) {
    activation_detail::check_float_input("tanh", "x", x);
    return std::make_shared<Tanh>()->apply({x})[0];
}

}  // namespace rensa::functions
