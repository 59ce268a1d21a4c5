// batch_normalization and fixed_batch_normalization (Chainer's semantics). The forward
// passes and the first-order gradient run on the fused kernels (core/ops/normalization.h);
// the second-order gradients are composed of differentiable functions, as in Chainer's
// BatchNormalizationGrad.backward.

#include <algorithm>
#include <string_view>

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

// x's shape with the reduced axes set to 1, and the reduced axes: how per-channel
// values broadcast against x and how x-shaped values reduce to channels.
struct ChannelGeometry {
    Axes axes;
    Shape keep_shape, channel_shape;
    double m = 1;  // elements per channel

    Variable expand(const Variable& v) const { return reshape(v, keep_shape); }
    Variable reduce(const Variable& v) const { return reshape(sum(v, axes), channel_shape); }
};

ChannelGeometry geometry(const Shape& x_shape, const Axes& axes) {
    ChannelGeometry g{axes, x_shape, {}, 1.0};
    for (int i = 0; i < x_shape.size(); ++i) {
        if (std::find(axes.begin(), axes.end(), i) != axes.end()) {
            g.keep_shape[i] = 1;
            g.m *= static_cast<double>(x_shape[i]);
        } else {
            g.channel_shape.push_back(x_shape[i]);
        }
    }
    return g;
}

// Differentiable dtype cast (identity when the dtype already matches).
class AsType : public FunctionNode {
public:
    explicit AsType(Dtype to) : to_{to} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        from_ = xs[0].dtype();
        return {xs[0].astype(to_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "AsType"; }

private:
    Dtype to_, from_ = Dtype::kFloat32;
};

Variable cast_to(const Variable& v, Dtype dtype) {
    return v.dtype() == dtype ? v : std::make_shared<AsType>(dtype)->apply({v})[0];
}

std::vector<Variable> AsType::backward(const Indexes&, const std::vector<Variable>& gys) {
    return {cast_to(gys[0], from_)};
}

Variable constant(const Array& a) { return Variable(a, false); }
Variable or_zeros(const Variable& v, const Shape& shape, Dtype dtype) {
    return v.defined() ? cast_to(v, dtype) : constant(ops::zeros(shape, dtype));
}

// Gradients of batch normalization (batch statistics) as a node of its own, so that the
// gradients can be differentiated again.
class BatchNormalizationGrad : public FunctionNode {
public:
    BatchNormalizationGrad(ChannelGeometry geometry, Array mean, Array inv_std)
        : g_{std::move(geometry)}, mean_{std::move(mean)}, inv_std_{std::move(inv_std)} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 1, 2});
        retain_outputs({0, 1});
        const ops::BatchNormGrads r = ops::batch_norm_backward(in[0], in[1], mean_, inv_std_, in[2], g_.axes);
        return {r.gx, r.ggamma, r.gbeta};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& grads) override;
    std::string label() const override { return "BatchNormalizationGrad"; }

private:
    ChannelGeometry g_;
    Array mean_, inv_std_;
};

// Chainer's BatchNormalizationGrad.backward, in x's dtype.
std::vector<Variable> BatchNormalizationGrad::backward(const Indexes&, const std::vector<Variable>& grads) {
    const Variable x = retained_input(0), gy = retained_input(2);
    const Dtype dt = x.dtype(), gamma_dtype = input_dtype(1);
    const Variable gamma = cast_to(retained_input(1), dt);
    const Variable gx1 = retained_output(0), ggamma1 = cast_to(retained_output(1), dt);
    const Variable ggx1 = or_zeros(grads[0], x.shape(), dt);
    const Variable gggamma1 = or_zeros(grads[1], g_.channel_shape, dt);
    const Variable ggbeta1 = or_zeros(grads[2], g_.channel_shape, dt);
    const Variable inv_std = constant(inv_std_.astype(dt, false)), mean = constant(mean_.astype(dt, false));
    const double inv_m = 1.0 / g_.m;

    const Variable r = g_.reduce(gx1 * ggx1);
    const Variable coeff = gamma * inv_std;
    const Variable coeff_m = coeff * inv_m;
    const Variable x_hat = (x - g_.expand(mean)) * g_.expand(inv_std);
    const Variable gggamma2 = gggamma1 - coeff_m * g_.reduce(x_hat * ggx1);
    const Variable ggbeta2 = ggbeta1 - coeff_m * g_.reduce(ggx1);
    const Variable ggamma2 = r / gamma;
    const Variable gx_hat2 = g_.expand(gggamma2) * gy - g_.expand(coeff_m * ggamma1) * ggx1;
    const Variable gstd2 = -inv_std * (r + g_.reduce(x_hat * gx_hat2));
    const Variable gmean2 = -inv_std * g_.reduce(gx_hat2);
    const Variable gx2 = g_.expand(inv_std) * gx_hat2 + inv_m * (g_.expand(gmean2) + x_hat * g_.expand(gstd2));
    const Variable ggy2 = g_.expand(gggamma2) * x_hat + g_.expand(ggbeta2) + g_.expand(coeff) * ggx1;
    return {gx2, cast_to(ggamma2, gamma_dtype), ggy2};
}

class BatchNormalization : public FunctionNode {
public:
    BatchNormalization(ChannelGeometry geometry, const BatchNormalizationOptions& options)
        : g_{std::move(geometry)}, options_{options} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 1});
        ops::BatchNormResult r = ops::batch_norm(in[0], in[1], in[2], g_.axes, options_.eps);
        mean_ = r.mean;
        inv_std_ = r.inv_std;
        update_running_statistics();
        return {r.y};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        auto grad = std::make_shared<BatchNormalizationGrad>(g_, mean_, inv_std_);
        return grad->apply({retained_input(0), retained_input(1), gys[0]});
    }
    std::string label() const override { return "BatchNormalization"; }
    Attributes attributes() const override {
        return {{"eps", options_.eps},
                {"axis", std::vector<int64_t>(g_.axes.begin(), g_.axes.end())},
                {"decay", options_.decay}};
    }

private:
    // Chainer's update: the running variance takes the unbiased batch variance.
    void update_running_statistics() const {
        const double decay = options_.decay, adjust = g_.m / std::max(g_.m - 1.0, 1.0);
        if (options_.running_mean.defined()) {
            ops::multiply_inplace(options_.running_mean, decay);
            ops::add_inplace(options_.running_mean, ops::multiply(mean_.astype(Dtype::kFloat64), 1.0 - decay));
        }
        if (options_.running_var.defined()) {
            const Array is = inv_std_.astype(Dtype::kFloat64);
            const Array var = ops::subtract(ops::reciprocal(ops::multiply(is, is)), options_.eps);
            ops::multiply_inplace(options_.running_var, decay);
            ops::add_inplace(options_.running_var, ops::multiply(var, (1.0 - decay) * adjust));
        }
    }

    ChannelGeometry g_;
    BatchNormalizationOptions options_;
    Array mean_, inv_std_;
};

// Test-mode batch normalization; all five inputs are differentiable.
class FixedBatchNormalization : public FunctionNode {
public:
    FixedBatchNormalization(ChannelGeometry geometry, double eps) : g_{std::move(geometry)}, eps_{eps} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 1, 3, 4});
        return {ops::fixed_batch_norm(in[0], in[1], in[2], in[3], in[4], g_.axes, eps_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "FixedBatchNormalization"; }
    Attributes attributes() const override {
        return {{"eps", eps_}, {"axis", std::vector<int64_t>(g_.axes.begin(), g_.axes.end())}};
    }

private:
    ChannelGeometry g_;
    double eps_;
};

std::vector<Variable> FixedBatchNormalization::backward(const Indexes&, const std::vector<Variable>& gys) {
    const Variable x = retained_input(0), gy = gys[0];
    const Dtype dt = x.dtype();
    const Variable gamma = cast_to(retained_input(1), dt), mean = cast_to(retained_input(3), dt);
    const Variable var = cast_to(retained_input(4), dt);
    const Variable inv_std = pow(var + eps_, -0.5);
    const Variable x_hat = (x - g_.expand(mean)) * g_.expand(inv_std);
    const Variable gbeta = g_.reduce(gy);
    const Variable ggamma = g_.reduce(gy * x_hat);
    const Variable gamma_inv_std = gamma * inv_std;
    const Variable gx = gy * g_.expand(gamma_inv_std);
    const Variable gmean = -gamma_inv_std * gbeta;
    const Variable gvar = -0.5 * gamma_inv_std * inv_std * ggamma;
    return {gx, cast_to(ggamma, input_dtype(1)), cast_to(gbeta, input_dtype(2)), cast_to(gmean, input_dtype(3)),
            cast_to(gvar, input_dtype(4))};
}

// Chainer's type checks; returns the normalized statistics axes.
Axes checked_axes(const Variable& x, const Variable& gamma, const Variable& beta, const std::optional<Axes>& axis,
                  std::string_view op) {
    expect_float(x, op, "x");
    expect_same_float(gamma, beta, op, "gamma", "beta");
    expect_same_shape(gamma, beta, op, "gamma", "beta");
    RENSA_CHECK(x.ndim() >= gamma.ndim() + 1, DimensionError, op,
                ": Expect: x.ndim >= gamma.ndim + 1, Actual: ", x.ndim(), " < ", gamma.ndim() + 1);
    Axes axes = axis ? normalize_axes(*axis, x.ndim(), op) : ops::batch_norm_default_axes(x.ndim(), gamma.ndim());
    std::sort(axes.begin(), axes.end());
    const ChannelGeometry g = geometry(x.shape(), axes);
    RENSA_CHECK(g.channel_shape == gamma.shape(), DimensionError, op,
                ": Expect: gamma.shape == x.shape without the axes ", axes, ", Actual: ", gamma.shape(),
                " != ", g.channel_shape);
    return axes;
}

void check_statistic(const Variable& s, const Variable& gamma, std::string_view op, std::string_view name) {
    expect_float(s, op, name);
    expect_same_shape(s, gamma, op, name, "gamma");
}

void check_running(const Array& a, const Variable& gamma, std::string_view name) {
    if (!a.defined()) return;
    expect_float(Variable(a, false), "batch_normalization", name);
    expect_same_shape(Variable(a, false), gamma, "batch_normalization", name, "gamma");
}

}  // namespace

Variable batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta,
                             const BatchNormalizationOptions& options) {
    const Axes axes = checked_axes(x, gamma, beta, options.axis, "batch_normalization");
    check_running(options.running_mean, gamma, "running_mean");
    check_running(options.running_var, gamma, "running_var");
    auto node = std::make_shared<BatchNormalization>(geometry(x.shape(), axes), options);
    return node->apply({x, gamma, beta})[0];
}

Variable fixed_batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta, const Variable& mean,
                                   const Variable& var, double eps, const std::optional<Axes>& axis) {
    const Axes axes = checked_axes(x, gamma, beta, axis, "fixed_batch_normalization");
    check_statistic(mean, gamma, "fixed_batch_normalization", "mean");
    check_statistic(var, gamma, "fixed_batch_normalization", "var");
    auto node = std::make_shared<FixedBatchNormalization>(geometry(x.shape(), axes), eps);
    return node->apply({x, gamma, beta, mean, var})[0];
}

}  // namespace rensa::functions
