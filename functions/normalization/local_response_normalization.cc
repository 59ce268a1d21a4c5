// local_response_normalization (Chainer's LocalResponseNormalization): the window sums
// over channels are shifted in-place adds of slices. Its gradient node has no gradient of
// its own, as in Chainer.

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "functions/normalization.h"

namespace rensa::functions {
namespace {

Dtype compute_dtype(Dtype x) { return x == Dtype::kFloat16 || x == Dtype::kBFloat16 ? Dtype::kFloat32 : x; }

// out[:, i] = sum of a[:, j] for |i - j| <= half_n (a new array).
Array channel_window_sum(const Array& a, int64_t half_n) {
    const Array out = a.copy();
    const int64_t c = a.shape()[1];
    const auto channels = [](std::optional<int64_t> start, std::optional<int64_t> stop) {
        return std::vector<Index>{Slice{}, Slice{start, stop}};
    };
    for (int64_t i = 1; i <= half_n && i < c; ++i) {
        ops::add_inplace(out.index(channels(i, std::nullopt)), a.index(channels(std::nullopt, c - i)));
        ops::add_inplace(out.index(channels(std::nullopt, c - i)), a.index(channels(i, std::nullopt)));
    }
    return out;
}

class LocalResponseNormalizationGrad : public FunctionNode {
public:
    LocalResponseNormalizationGrad(LocalResponseNormalizationOptions o, Array unit_scale, Array scale)
        : o_{o}, unit_scale_{std::move(unit_scale)}, scale_{std::move(scale)} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const Dtype cd = unit_scale_.dtype();
        const Array x = in[0].astype(cd, false), y = in[1].astype(cd, false), gy = in[2].astype(cd, false);
        const Array summand = ops::divide(ops::multiply(y, gy), unit_scale_);
        const Array sum_part = channel_window_sum(summand, o_.n / 2);
        const Array gx = ops::subtract(ops::multiply(gy, scale_),
                                       ops::multiply(ops::multiply(x, sum_part), 2.0 * o_.alpha * o_.beta));
        return {gx.astype(in[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        RENSA_THROW(NotImplementedError, "local_response_normalization: double backprop is not supported");
    }
    std::string label() const override { return "LocalResponseNormalizationGrad"; }

private:
    LocalResponseNormalizationOptions o_;
    Array unit_scale_, scale_;
};

class LocalResponseNormalization : public FunctionNode {
public:
    explicit LocalResponseNormalization(LocalResponseNormalizationOptions o) : o_{o} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0});
        retain_outputs({0});
        const Array x = in[0].astype(compute_dtype(in[0].dtype()), false);
        const Array sum_part = channel_window_sum(ops::square(x), o_.n / 2);
        unit_scale_ = ops::add(ops::multiply(sum_part, o_.alpha), o_.k);
        scale_ = ops::power(unit_scale_, -o_.beta);
        return {ops::multiply(x, scale_).astype(in[0].dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        auto grad = std::make_shared<LocalResponseNormalizationGrad>(o_, unit_scale_, scale_);
        return grad->apply({retained_input(0), retained_output(0), gys[0]});
    }
    std::string label() const override { return "LocalResponseNormalization"; }

private:
    LocalResponseNormalizationOptions o_;
    Array unit_scale_, scale_;
};

}  // namespace

Variable local_response_normalization(const Variable& x, const LocalResponseNormalizationOptions& options) {
    expect_float(x, "local_response_normalization", "x");
    RENSA_CHECK(x.ndim() >= 2, DimensionError, "local_response_normalization: Expect: x.ndim >= 2, Actual: ", x.ndim());
    RENSA_CHECK(options.n > 0, ValueError, "local_response_normalization: n must be positive, got ", options.n);
    return std::make_shared<LocalResponseNormalization>(options)->apply({x})[0];
}

}  // namespace rensa::functions
