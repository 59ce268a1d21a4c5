#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "core/ops/operators.h"
#include "functions/activation.h"

namespace rensa::functions {
namespace {

// y = max(x, 0); gx = gy * (y > 0), which is linear in gy so double backprop reuses it.
class ReLUGrad;

class ReLU : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::maximum(xs[0], 0)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "ReLU"; }
};

// gx = gy * (y > 0) with y held constant; its own backward is itself with the same mask.
class ReLUGrad : public FunctionNode {
public:
    explicit ReLUGrad(Array mask) : mask_{std::move(mask)} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override { return {ops::multiply(gys[0], mask_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {std::make_shared<ReLUGrad>(mask_)->apply({ggs[0]})[0]};
    }
    std::string label() const override { return "ReLUGrad"; }

private:
    Array mask_;  // (y > 0) in y's dtype
};

std::vector<Variable> ReLU::backward(const Indexes&, const std::vector<Variable>& gys) {
    const Array y = retained_output(0).array();
    const Array mask = ops::greater(y, 0).astype(y.dtype());
    return {std::make_shared<ReLUGrad>(mask)->apply({gys[0]})[0]};
}

}  // namespace

Variable relu(const Variable& x) {
    RENSA_CHECK(is_float(x.dtype()), DtypeError, "relu: Expect: x.dtype.kind == 'f', Actual: ", dtype_name(x.dtype()));
    return std::make_shared<ReLU>()->apply({x})[0];
}

}  // namespace rensa::functions
