#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "functions/noise.h"

namespace rensa::functions {
namespace {

// y = mean + exp(ln_var / 2) * eps with a constant eps; gmean = gy and
// gln_var = gy * exp(ln_var / 2) * eps / 2, built from ln_var so double backprop follows.
class Gaussian : public FunctionNode {
public:
    explicit Gaussian(Array eps) : eps_{std::move(eps)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({1});
        return {ops::add(xs[0], ops::multiply(ops::exp(ops::multiply(xs[1], 0.5)), eps_))};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable ln_var = retained_input(1);
        return {gys[0], gys[0] * (0.5 * exp(0.5 * ln_var)) * Variable(eps_, false)};
    }
    std::string label() const override { return "Gaussian"; }

private:
    Array eps_;
};

void check_gaussian(const Variable& mean, const Variable& ln_var) {
    expect_float(mean, "gaussian", "mean");
    expect_same_dtype(mean, ln_var, "gaussian", "mean", "ln_var");
    expect_same_shape(mean, ln_var, "gaussian", "mean", "ln_var");
}

}  // namespace

Variable gaussian(const Variable& mean, const Variable& ln_var) {
    check_gaussian(mean, ln_var);
    if (!config().train) return mean;
    const Array eps = ops::normal(mean.shape(), 0.0, 1.0, mean.dtype(), mean.device());
    return std::make_shared<Gaussian>(eps)->apply({mean, ln_var})[0];
}

Variable gaussian(const Variable& mean, const Variable& ln_var, const Array& eps) {
    check_gaussian(mean, ln_var);
    RENSA_CHECK(eps.defined() && eps.shape() == mean.shape() && eps.dtype() == mean.dtype(), DimensionError,
                "gaussian: Expect: eps.shape == mean.shape and eps.dtype == mean.dtype");
    return std::make_shared<Gaussian>(eps)->apply({mean, ln_var})[0];
}

}  // namespace rensa::functions
