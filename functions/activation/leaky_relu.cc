#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

using activation_detail::constant;

// y = x where x >= 0, slope * x elsewhere; gx = gy * (x >= 0 ? 1 : slope), linear in gy.
class LeakyReLU : public FunctionNode {
public:
    explicit LeakyReLU(double slope) : slope_{slope} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::where(ops::greater_equal(xs[0], 0), xs[0], ops::multiply(xs[0], slope_))};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Array x = retained_input(0).array();
        const Array mask = ops::add(ops::multiply(ops::greater_equal(x, 0).astype(x.dtype()), 1.0 - slope_), slope_);
        return {gys[0] * constant(mask)};
    }
    std::string label() const override { return "LeakyReLU"; }
    Attributes attributes() const override { return {{"slope", slope_}}; }

private:
    double slope_;
};

}  // namespace

Variable leaky_relu(const Variable& x, double slope) {
    expect_float(x, "leaky_relu", "x");
    return std::make_shared<LeakyReLU>(slope)->apply({x})[0];
}

}  // namespace rensa::functions
