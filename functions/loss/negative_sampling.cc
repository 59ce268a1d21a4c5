#include <memory>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/grad.h"
#include "autograd/modes.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "core/ops/reduction.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

constexpr int64_t kIgnoreLabel = -1;

Dtype compute_dtype(Dtype dtype) {
    return dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16 ? Dtype::kFloat32 : dtype;
}

// The sampled rows of W, (N, K, D), and their products with x, (N, K), in `dtype`.
struct Scores {
    Array w, f;
};
Scores scores(const Array& x, const Array& W, const Array& samples, Dtype dtype) {
    const int64_t n = x.shape()[0], d = x.shape()[1];
    const Array w = ops::take(W, samples.reshape({-1}), 0).reshape({n, -1, d}).astype(dtype, false);
    return {w, ops::sum(ops::multiply(w, x.astype(dtype, false).reshape({n, 1, d})), Axes{2})};
}

// gx = sum_k g_k W[ids_k], gW[ids_k] += g_k x with g = gy s sigmoid(s f) (masked rows zero).
//
// Note [Negative sampling double backprop]: the second derivatives (Chainer 7's
// NegativeSamplingFunctionGrad.backward) are those of the scalar
// S = <ggx, gx> + <ggW, gW> = sum_{n,k} g_nk (ggx_n . W[ids_nk] + ggW[ids_nk] . x_n),
// which needs gathers only (no scatter). backward composes S of differentiable functions
// (embed_id gathers the rows) and lets autograd differentiate it by x, W and gy, so third
// and higher derivatives come too.
class NegativeSamplingGrad : public FunctionNode {
public:
    NegativeSamplingGrad(Array samples, Array sign, Array mask, bool sum)
        : samples_{std::move(samples)}, sign_{std::move(sign)}, mask_{std::move(mask)}, sum_{sum} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 1, 2});
        const Array &x = in[0], &W = in[1];
        const Dtype dtype = compute_dtype(x.dtype());
        const Scores s = scores(x, W, samples_, dtype);
        const Array gy = in[2].astype(dtype, false);
        const Array igy = sum_ ? ops::multiply(mask_, gy) : ops::multiply(mask_, gy.reshape({-1, 1}));
        const Array g = ops::multiply(ops::multiply(igy, sign_), ops::sigmoid(ops::multiply(sign_, s.f)));
        const Array g3 = g.reshape({g.shape()[0], g.shape()[1], 1});
        const Array gx = ops::sum(ops::multiply(g3, s.w), Axes{1});
        const Array gW = ops::zeros(W.shape(), dtype, W.device());
        const Array xd = x.astype(dtype, false);
        ops::scatter_add(gW, samples_, ops::multiply(g3, xd.reshape({xd.shape()[0], 1, xd.shape()[1]})), 0);
        return {gx.astype(x.dtype(), false), gW.astype(W.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& ggs) override {
        // S is built with the graph on, also when the caller's backward records none (the
        // inner grad needs it); the results keep a graph only when the caller's does.
        const bool keep_graph = is_backprop_enabled();
        ForceBackpropMode record;
        const Variable x = retained_input(0), W = retained_input(1), gy = retained_input(2);
        const int64_t n = x.shape()[0], d = x.shape()[1];
        const Variable ids(samples_, false);
        const Variable w = embed_id(ids, W);  // (N, K, D)
        const Variable x3 = reshape(x, {n, 1, d});
        const Variable sign(sign_.astype(x.dtype(), false), false);
        const Variable mask(mask_.astype(x.dtype(), false), false);  // (N, 1)
        const Variable igy = sum_ ? mask * broadcast_to(gy, mask.shape()) : mask * reshape(gy, {n, 1});
        const Variable g = igy * sign * sigmoid(sign * sum(w * x3, Axes{2}));  // (N, K)
        Variable s;
        if (ggs[0].defined()) s = sum(g * sum(w * reshape(ggs[0], {n, 1, d}), Axes{2}));
        if (ggs[1].defined()) {
            const Variable term = sum(g * sum(embed_id(ids, ggs[1]) * x3, Axes{2}));
            s = s.defined() ? s + term : term;
        }
        std::vector<Variable> inputs{x, W, gy}, out;
        const std::vector<Variable> grads =
            s.defined() ? grad({s}, inputs, {}, {.enable_double_backprop = keep_graph}) : std::vector<Variable>(3);
        for (const int i : targets) out.push_back(grads[static_cast<size_t>(i)]);
        return out;
    }
    std::string label() const override { return "NegativeSamplingGrad"; }

private:
    Array samples_, sign_, mask_;
    bool sum_;
};

// Per row: sum_k softplus(s_k W[ids_k] . x) where the row is not ignored; summed for "sum".
class NegativeSampling : public FunctionNode {
public:
    NegativeSampling(Array samples, Array mask, bool sum)
        : samples_{std::move(samples)}, mask_{std::move(mask)}, sum_{sum} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 2});
        const Array &x = in[0], &W = in[2];
        const Dtype dtype = compute_dtype(x.dtype());
        mask_ = mask_.astype(dtype).reshape({-1, 1});
        sign_ = ops::ones({1, samples_.shape()[1]}, dtype, x.device());
        sign_.index({Slice{}, int64_t{0}}).fill(-1);
        const Array sf = ops::multiply(scores(x, W, samples_, dtype).f, sign_);
        const Array softplus = ops::add(ops::maximum(sf, 0), ops::log1p(ops::exp(ops::negative(ops::abs(sf)))));
        const Array loss = ops::sum(ops::multiply(softplus, mask_), Axes{1});
        return {(sum_ ? ops::sum(loss) : loss).astype(x.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const std::vector<Variable> g = std::make_shared<NegativeSamplingGrad>(samples_, sign_, mask_, sum_)
                                            ->apply({retained_input(0), retained_input(2), gys[0]});
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(i == 0 ? g[0] : i == 2 ? g[1] : Variable());
        return gxs;
    }
    std::string label() const override { return "NegativeSampling"; }

private:
    Array samples_, mask_, sign_;
    bool sum_;
};

void check_inputs(const Variable& x, const Variable& t, const Variable& W, int64_t sample_size) {
    expect_float(x, "negative_sampling", "x");
    expect_integer(t, "negative_sampling", "t");
    expect_same_dtype(x, W, "negative_sampling", "x", "W");
    expect_ndim(x, 2, "negative_sampling", "x");
    expect_ndim(t, 1, "negative_sampling", "t");
    expect_ndim(W, 2, "negative_sampling", "W");
    RENSA_CHECK(x.shape()[0] == t.shape()[0], DimensionError,
                "negative_sampling: Expect: x.shape[0] == t.shape[0], Actual: ", x.shape()[0], " != ", t.shape()[0]);
    RENSA_CHECK(x.shape()[1] == W.shape()[1], DimensionError,
                "negative_sampling: Expect: x.shape[1] == W.shape[1], Actual: ", x.shape()[1], " != ", W.shape()[1]);
    RENSA_CHECK(sample_size >= 0, ValueError, "negative_sampling: sample_size must be non-negative, got ", sample_size);
}

// The sampler's ids (N, sample_size + 1) with column 0 replaced by t (0 where ignored).
Array make_samples(const NegativeSampler& sampler, const Array& t, int64_t n, int64_t sample_size, int64_t vocab) {
    RENSA_CHECK(sampler, ValueError, "negative_sampling: sampler is empty");
    const Shape shape{n, sample_size + 1};
    const Array drawn = sampler(shape);
    RENSA_CHECK(drawn.defined() && drawn.shape() == shape && is_integral(drawn.dtype()), ValueError,
                "negative_sampling: sampler must return integer ids of shape ", shape);
    const Array samples = drawn.to_device(t.device()).astype(Dtype::kInt64);
    samples.index({Slice{}, int64_t{0}}).assign(ops::where(ops::equal(t, kIgnoreLabel), 0, t));
    detail::check_loss_labels("negative_sampling", "samples", samples, vocab);
    return samples;
}

}  // namespace

Variable negative_sampling(const Variable& x, const Variable& t, const Variable& W, const NegativeSampler& sampler,
                           int64_t sample_size, std::string_view reduce) {
    detail::check_loss_reduce("negative_sampling", reduce, {"sum", "no"});
    check_inputs(x, t, W, sample_size);
    const int64_t vocab = W.shape()[0];
    detail::check_loss_labels("negative_sampling", "t", t.array(), vocab, kIgnoreLabel);
    const Array samples = make_samples(sampler, t.array(), x.shape()[0], sample_size, vocab);
    const Array mask = ops::not_equal(t.array(), kIgnoreLabel);
    return std::make_shared<NegativeSampling>(samples, mask, reduce == "sum")->apply({x, t, W})[0];
}

}  // namespace rensa::functions
