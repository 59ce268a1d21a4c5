#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

using activation_detail::constant;

// y = clip(0.2 * x + 0.5, 0, 1); gx = gy * 0.2 * (-2.5 < x < 2.5), linear in gy.
class HardSigmoid : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::clip(ops::add(ops::multiply(xs[0], 0.2), 0.5), 0, 1)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Array x = retained_input(0).array();
        const Array inside = ops::logical_and(ops::greater(x, -2.5), ops::less(x, 2.5));
        return {gys[0] * constant(ops::multiply(inside.astype(x.dtype()), 0.2))};
    }
    std::string label() const override { return "HardSigmoid"; }
};

}  // namespace

Variable hard_sigmoid(const Variable& x) {
    expect_float(x, "hard_sigmoid", "x");
    return std::make_shared<HardSigmoid>()->apply({x})[0];
}

}  // namespace rensa::functions
