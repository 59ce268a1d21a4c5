// decorrelated_batch_normalization (Huang 2018) as Chainer computes it: ZCA whitening of
// each group of C = channels / groups channels, x_hat (g, C, m) -> V diag(w)^-1/2 V^T x_hat
// with V diag(w) V^T the group's covariance + eps I. The eigen decomposition is
// detail::symmetric_eigen (Note [Jacobi eigensolver through ops]); the gradient is
// Chainer's closed form (not double-differentiable, as in Chainer).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/linalg.h"
#include "core/ops/reduction.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/normalization.h"
#include "functions/normalization/detail.h"

namespace rensa::functions {
namespace {

constexpr const char* kName = "decorrelated_batch_normalization";

// x (b, c, spatial...) <-> (g, C, m) with m = b * prod(spatial): Chainer's layout.
struct Groups {
    Shape x_shape;
    int64_t g, C, m;
    Axes to_channels_first() const {  // (c, b, spatial...)
        Axes axes{1, 0};
        for (int i = 2; i < x_shape.size(); ++i) axes.push_back(i);
        return axes;
    }
    Array to_groups(const Array& x) const { return x.transpose(to_channels_first()).reshape({g, C, m}); }
    Array from_groups(const Array& y) const {
        Shape s{x_shape[1], x_shape[0]};
        for (int i = 2; i < x_shape.size(); ++i) s.push_back(x_shape[i]);
        return y.reshape(s).transpose(to_channels_first()).copy();  // the permutation is its own inverse
    }
};

Groups groups_of(const Shape& x_shape, int64_t groups) {
    int64_t m = x_shape[0];
    for (int i = 2; i < x_shape.size(); ++i) m *= x_shape[i];
    return {x_shape, groups, x_shape[1] / groups, m};
}

void check_x(const Variable& x, int64_t groups, std::string_view function) {
    expect_float(x, function, "x");
    RENSA_CHECK(x.ndim() >= 2, DimensionError, function, ": Expect: x.ndim >= 2, Actual: ", x.ndim());
    RENSA_CHECK(groups > 0 && x.shape()[1] % groups == 0, DimensionError, function,
                ": Expect: x.shape[1] % groups == 0, Actual: x.shape[1] = ", x.shape()[1], ", groups = ", groups);
}

Array diag_mask(int64_t n, Dtype dtype, Device device) {
    return ops::eye(n, std::nullopt, 0, dtype, device).reshape({1, n, n});
}

// Chainer's DecorrelatedBatchNormalizationGrad: gx from gy, the eigen decomposition and
// the PCA-whitened input.
class DecorrelatedBatchNormalizationGrad : public FunctionNode {
public:
    DecorrelatedBatchNormalizationGrad(Groups groups, Array eigvals, Array eigvectors, Array y_hat_pca)
        : groups_{std::move(groups)}, w_{std::move(eigvals)}, v_{std::move(eigvectors)}, y_pca_{std::move(y_hat_pca)} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Groups& G = groups_;
        const Array gy_hat = G.to_groups(in[0]).astype(w_.dtype(), false);
        const Array gy_pca = ops::batch_matmul(v_, gy_hat, true, false);
        const Array f = ops::mean(gy_pca, Axes{2}, true);
        const Array wi = w_.reshape({G.g, G.C, 1}), wj = w_.reshape({G.g, 1, G.C});
        const Array k = ops::subtract(wi, wj);
        const Array valid = ops::not_equal(k, 0.0);
        const Array kinv = ops::where(valid, ops::reciprocal(ops::where(valid, k, 1.0)), 0.0);
        const Array fc = ops::divide(ops::batch_matmul(gy_pca, y_pca_, false, true), static_cast<double>(G.m));
        const Array diag = ops::multiply(fc, diag_mask(G.C, fc.dtype(), fc.device()));
        const Array sqrt_w = ops::sqrt(w_);
        const Array mat = ops::multiply(
            kinv.swapaxes(1, 2),
            ops::add(ops::multiply(wi, fc.swapaxes(1, 2)),
                     ops::multiply(ops::multiply(sqrt_w.reshape({G.g, G.C, 1}), fc), sqrt_w.reshape({G.g, 1, G.C}))));
        const Array s = ops::add(mat, mat.swapaxes(1, 2));
        const Array r =
            ops::add(ops::subtract(gy_pca, f), ops::batch_matmul(ops::subtract(s, diag), y_pca_, true, false));
        const Array gx_hat = ops::batch_matmul(v_, ops::multiply(ops::rsqrt(wi), r));
        return {G.from_groups(gx_hat).astype(in[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        RENSA_THROW(NotImplementedError, kName, ": double backprop is not supported (as in Chainer)");
    }
    std::string label() const override { return "DecorrelatedBatchNormalizationGrad"; }

private:
    Groups groups_;
    Array w_, v_, y_pca_;
};

class DecorrelatedBatchNormalization : public FunctionNode {
public:
    DecorrelatedBatchNormalization(int64_t groups, const DecorrelatedBatchNormalizationOptions& options)
        : groups_{groups}, options_{options} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Array& x = in[0];
        const Groups G = groups_of(x.shape(), groups_);
        const Dtype dtype = x.dtype() == Dtype::kFloat64 ? Dtype::kFloat64 : Dtype::kFloat32;
        const Array x_groups = G.to_groups(x).astype(dtype, false);
        const Array mean = ops::mean(x_groups, Axes{2}, true);
        const Array x_hat = ops::subtract(x_groups, mean);
        const Array cov = ops::add(ops::divide(ops::batch_matmul(x_hat, x_hat, false, true), static_cast<double>(G.m)),
                                   ops::multiply(diag_mask(G.C, dtype, x.device()), options_.eps));
        const detail::SymmetricEigen eig = detail::symmetric_eigen(cov);
        const Array w = eig.values.astype(dtype, false), v = eig.vectors.astype(dtype, false);
        // U = diag(w^-1/2) V^T; PCA whitening U x_hat, then ZCA V U x_hat.
        const Array u = ops::multiply(ops::rsqrt(w).reshape({G.g, G.C, 1}), v.swapaxes(1, 2));
        const Array y_pca = ops::batch_matmul(u, x_hat);
        const Array y = ops::batch_matmul(v, y_pca);
        update_statistics(mean.reshape({G.g, G.C}), ops::batch_matmul(v, u), G.m);
        grad_ = std::make_shared<DecorrelatedBatchNormalizationGrad>(G, w, v, y_pca);
        return {G.from_groups(y).astype(x.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return grad_->apply({gys[0]});
    }
    std::string label() const override { return "DecorrelatedBatchNormalization"; }

private:
    void update_statistics(const Array& mean, const Array& projection, int64_t m) const {
        const double decay = options_.decay;
        if (options_.running_mean.defined()) {
            const Array& rm = options_.running_mean;
            rm.assign(ops::add(ops::multiply(rm, decay), ops::multiply(mean, 1.0 - decay)));
        }
        if (options_.running_projection.defined()) {
            const double md = static_cast<double>(m), adjust = md / std::max(md - 1.0, 1.0);
            const Array& rp = options_.running_projection;
            rp.assign(ops::add(ops::multiply(rp, decay), ops::multiply(projection, (1.0 - decay) * adjust)));
        }
    }
    int64_t groups_;
    DecorrelatedBatchNormalizationOptions options_;
    std::shared_ptr<DecorrelatedBatchNormalizationGrad> grad_;
};

void check_statistic(const Array& s, const Shape& expected, std::string_view name) {
    if (!s.defined()) return;
    RENSA_CHECK(s.shape() == expected, DimensionError, kName, ": Expect: ", name, ".shape == ", expected,
                ", Actual: ", s.shape());
}

}  // namespace

Variable decorrelated_batch_normalization(const Variable& x, const DecorrelatedBatchNormalizationOptions& options) {
    check_x(x, options.groups, kName);
    const Groups G = groups_of(x.shape(), options.groups);
    check_statistic(options.running_mean, {G.g, G.C}, "running_mean");
    check_statistic(options.running_projection, {G.g, G.C, G.C}, "running_projection");
    return std::make_shared<DecorrelatedBatchNormalization>(options.groups, options)->apply({x})[0];
}

Variable fixed_decorrelated_batch_normalization(const Variable& x, const Variable& mean, const Variable& projection,
                                                int64_t groups) {
    constexpr const char* name = "fixed_decorrelated_batch_normalization";
    check_x(x, groups, name);
    expect_same_dtype(x, mean, name, "x", "mean");
    expect_same_dtype(x, projection, name, "x", "projection");
    const Groups G = groups_of(x.shape(), groups);
    expect_shape(mean, {G.g, G.C}, name, "mean");
    expect_shape(projection, {G.g, G.C, G.C}, name, "projection");
    // (g, C, m) from x, through differentiable functions.
    Shape channels_first{x.shape()[1], x.shape()[0]};
    for (int i = 2; i < x.ndim(); ++i) channels_first.push_back(x.shape()[i]);
    const Variable x_hat = reshape(transpose(x, G.to_channels_first()), {G.g, G.C, G.m}) - reshape(mean, {G.g, G.C, 1});
    const Variable y_hat = matmul(projection, x_hat);
    return transpose(reshape(y_hat, channels_first), G.to_channels_first());
}

}  // namespace rensa::functions
