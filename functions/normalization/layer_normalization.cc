// layer_normalization (Chainer's LayerNormalization): the forward pass runs on the batch
// normalization kernel with the rows as channels; backward is Chainer's composition of
// differentiable functions (double backprop).

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/normalization.h"
#include "functions/normalization.h"

namespace rensa::functions {
namespace {

class LayerNormalization : public FunctionNode {
public:
    explicit LayerNormalization(double eps) : eps_{eps} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 1});
        const Array& x = in[0];
        const int64_t rows = x.shape()[0];
        const Dtype sd = ops::batch_norm_stat_dtype(x.dtype());
        // Per-row statistics: the rows are the kernel's channels.
        const Array x_hat =
            ops::batch_norm(x, ops::ones({rows}, sd, x.device()), ops::zeros({rows}, sd, x.device()), Axes{1}, eps_).y;
        return {ops::add(ops::multiply(x_hat, in[1]), in[2]).astype(x.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "LayerNormalization"; }
    Attributes attributes() const override { return {{"eps", eps_}}; }

private:
    double eps_;
};

std::vector<Variable> LayerNormalization::backward(const Indexes&, const std::vector<Variable>& gys) {
    const Variable x = retained_input(0), gamma = retained_input(1), gy = gys[0];
    const double units = static_cast<double>(x.shape()[1]);
    const Axes row{1};
    const Variable mu = sum(x, row, true) * (1.0 / units);
    const Variable x_mu = x - mu;
    const Variable var = sum(x_mu * x_mu, row, true) * (1.0 / units);
    const Variable inv_std = pow(var + eps_, -0.5);
    const Variable x_hat = x_mu * inv_std;

    const Variable g_beta = sum(gy, Axes{0});
    const Variable g_gamma = sum(gy * x_hat, Axes{0});
    const Variable g_x_hat = gy * gamma;
    const Variable g_inv_std = sum(g_x_hat * x_mu, row, true);
    const Variable g_x_mu_1 = g_x_hat * inv_std;
    // d inv_std / d var = -0.5 * inv_std^3; d var / d x_mu = 2 * x_mu / units.
    const Variable g_var = g_inv_std * (-0.5) * inv_std * inv_std * inv_std;
    const Variable g_x_1 = g_x_mu_1 + g_var * (2.0 / units) * x_mu;
    const Variable g_mu = sum(g_x_1, row, true) * (-1.0 / units);
    return {g_x_1 + g_mu, g_gamma, g_beta};
}

}  // namespace

Variable layer_normalization(const Variable& x, const Variable& gamma, const Variable& beta, double eps) {
    expect_float(x, "layer_normalization", "x");
    expect_ndim(x, 2, "layer_normalization", "x");
    RENSA_CHECK(gamma.ndim() == 1 && beta.ndim() == 1, DimensionError,
                "layer_normalization: Expect: gamma.ndim == 1 and beta.ndim == 1, Actual: ", gamma.ndim(), ", ",
                beta.ndim());
    expect_same_dtype(gamma, x, "layer_normalization", "gamma", "x");
    expect_same_dtype(beta, x, "layer_normalization", "beta", "x");
    RENSA_CHECK(gamma.shape() == beta.shape() && gamma.shape()[0] == x.shape()[1], DimensionError,
                "layer_normalization: Expect: gamma.shape == beta.shape == (x.shape[1],), Actual: ", gamma.shape(),
                ", ", beta.shape(), ", x.shape=", x.shape());
    return std::make_shared<LayerNormalization>(eps)->apply({x, gamma, beta})[0];
}

}  // namespace rensa::functions
