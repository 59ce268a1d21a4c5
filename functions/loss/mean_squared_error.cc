#include <memory>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

// sum((x0 - x1)^2) / size; gx0 = gy (x0 - x1) 2 / size = -gx1, differentiable again.
class MeanSquaredError : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        const Array diff = ops::subtract(xs[0], xs[1]);
        return {ops::divide(ops::sum(ops::square(diff)), static_cast<double>(diff.size()))};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Variable diff = retained_input(0) - retained_input(1);
        const double coeff = 2.0 / static_cast<double>(diff.size());
        const Variable gx0 = rensa::broadcast_to(gys[0], diff.shape()) * diff * coeff;
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(i == 0 ? gx0 : -gx0);
        return gxs;
    }
    std::string label() const override { return "MeanSquaredError"; }
};

// sum(|x0 - x1|) / size; gx0 = gy sign(x0 - x1) / size = -gx1 (sign held constant).
class MeanAbsoluteError : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        const Array diff = ops::subtract(xs[0], xs[1]);
        sign_ = ops::sign(diff);
        return {ops::divide(ops::sum(ops::abs(diff)), static_cast<double>(diff.size()))};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const double coeff = 1.0 / static_cast<double>(sign_.size());
        const Variable gx0 = rensa::broadcast_to(gys[0] * coeff, sign_.shape()) * Variable(sign_, false);
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(i == 0 ? gx0 : -gx0);
        return gxs;
    }
    std::string label() const override { return "MeanAbsoluteError"; }

private:
    Array sign_;
};

void check_pair(std::string_view function, const Variable& x0, const Variable& x1) {
    expect_same_float(x0, x1, function, "x0", "x1");
    expect_same_shape(x0, x1, function, "x0", "x1");
}

}  // namespace

Variable mean_squared_error(const Variable& x0, const Variable& x1) {
    check_pair("mean_squared_error", x0, x1);
    return std::make_shared<MeanSquaredError>()->apply({x0, x1})[0];
}

Variable mean_absolute_error(const Variable& x0, const Variable& x1) {
    check_pair("mean_absolute_error", x0, x1);
    return std::make_shared<MeanAbsoluteError>()->apply({x0, x1})[0];
}

}  // namespace rensa::functions
