#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

using activation_detail::constant;

// y = min(max(0, x), z); gx = gy * (0 < x < z), linear in gy.
class ClippedReLU : public FunctionNode {
public:
    explicit ClippedReLU(double z) : z_{z} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::minimum(ops::maximum(xs[0], 0), z_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Array x = retained_input(0).array();
        const Array mask = ops::logical_and(ops::greater(x, 0), ops::less(x, z_)).astype(x.dtype());
        return {gys[0] * constant(mask)};
    }
    std::string label() const override { return "ClippedReLU"; }
    Attributes attributes() const override { return {{"z", z_}}; }

private:
    double z_;
};

}  // namespace

Variable clipped_relu(const Variable& x, double z) {
    expect_float(x, "clipped_relu", "x");
    RENSA_CHECK(z > 0, ValueError, "clipped_relu: Expect: z > 0, Actual: z = ", z);
    return std::make_shared<ClippedReLU>(z)->apply({x})[0];
}

}  // namespace rensa::functions
