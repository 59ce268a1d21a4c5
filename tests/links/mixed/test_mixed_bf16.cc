// mixed_bf16 (config dtype bfloat16 + mixed16): every matmul, convolution and normalisation
// link forward and backward against the same model in float32 with the same bfloat16-rounded
// parameters and inputs, within Note [Mixed precision tolerances]; which parameters are 16-bit
// and which stay float32; float32 inputs cast by the links (Note [Mixed precision inputs]).

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>

#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/convolution_variants.h"
#include "links/connection/deconvolution_2d.h"
#include "links/connection/embed_id.h"
#include "links/connection/linear.h"
#include "links/connection/lstm.h"
#include "links/normalization/batch_normalization.h"
#include "links/normalization/batch_renormalization.h"
#include "links/normalization/decorrelated_batch_normalization.h"
#include "links/normalization/group_normalization.h"
#include "links/normalization/layer_normalization.h"
#include "tests/links/mixed/mixed_bf16_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Build = std::function<std::shared_ptr<L::Link>()>;
using Apply = std::function<Variable(L::Link&, const Variable&)>;

Variable call(L::Link& link, const Variable& x) { return link.forward(x); }

// The float32 model and its mixed_bf16 twin (built under the config) with shared rounded
// parameters; x (float32) goes to the mixed model as given, or as bfloat16 when `x_in_bf16`
// (the activations a normalisation sees in a mixed network); the float32 model gets the same
// values. Compares the outputs, the grads of x and of every parameter, and returns the pair.
std::pair<std::shared_ptr<L::Link>, std::shared_ptr<L::Link>> compare(const Build& build, const Array& x,
                                                                      bool x_in_bf16 = false,
                                                                      const Apply& apply = call) {
    std::shared_ptr<L::Link> ref = build();
    std::shared_ptr<L::Link> mixed;
    {
        MixedBF16Scope scope;
        mixed = build();
    }
    share_rounded_params(*ref, *mixed);
    const bool is_float_x = is_float(x.dtype());
    const Array x_ref = is_float_x ? bf16_rounded(x) : x;
    const Array x_mixed = is_float_x && x_in_bf16 ? x.astype(Dtype::kBFloat16) : x;
    const Variable xr(x_ref, is_float_x), xm(x_mixed, is_float_x);
    const Variable yr = apply(*ref, xr);
    Variable ym;
    {
        MixedBF16Scope scope;
        ym = apply(*mixed, xm);
    }
    CHECK(yr.dtype() == Dtype::kFloat32);
    CHECK(ym.dtype() == Dtype::kBFloat16);
    check_close_bf16(ym.array(), yr.array(), 4, "forward");

    const Array gy = bf16_rounded(ops::uniform(yr.shape(), -1, 1));
    yr.set_grad(gy);
    yr.backward();
    ym.set_grad(gy.astype(Dtype::kBFloat16));
    {
        MixedBF16Scope scope;
        ym.backward();
    }
    if (is_float_x) {
        CHECK(xm.grad().dtype() == x_mixed.dtype());
        check_close_bf16(xm.grad(), xr.grad(), 8, "grad of x");
    }
    const auto pr = ref->namedparams();
    const auto pm = mixed->namedparams();
    for (size_t i = 0; i < pr.size(); ++i) {
        CHECK(pm[i].second.grad().dtype() == pm[i].second.dtype());
        check_close_bf16(pm[i].second.grad(), pr[i].second.grad(), 8, "grad of " + pr[i].first);
    }
    return {ref, mixed};
}

Array random_x(const Shape& shape) { return ops::uniform(shape, -1, 1); }

void check_param_dtype(const L::Link& link, const std::string& name, Dtype dtype) {
    for (const auto& [n, p] : link.namedparams()) {
        if (n == name) {
            CHECK(p.dtype() == dtype);
            return;
        }
    }
    FAIL("no parameter " << name);
}

}  // namespace

TEST_CASE("mixed_bf16 Linear matches float32 and casts a float32 input", "[links][mixed]") {
    seed(1);
    auto [ref, mixed] = compare([] { return std::make_shared<L::Linear>(24, 16); }, random_x({8, 24}));
    check_param_dtype(*mixed, "/W", Dtype::kBFloat16);
    check_param_dtype(*mixed, "/b", Dtype::kBFloat16);
}

TEST_CASE("mixed_bf16 convolutions 1D, 2D, 3D and Deconvolution2D match float32", "[links][mixed]") {
    seed(2);
    compare([] { return std::make_shared<L::Convolution1D>(3, 5, 3); }, random_x({2, 3, 9}));
    compare([] { return std::make_shared<L::Convolution2D>(3, 6, 3, L::Convolution2DOptions{.pad = 1}); },
            random_x({2, 3, 7, 7}));
    compare([] { return std::make_shared<L::Convolution3D>(2, 4, 2); }, random_x({2, 2, 4, 4, 4}));
    compare([] { return std::make_shared<L::Deconvolution2D>(3, 4, 3, L::Deconvolution2DOptions{.stride = 2}); },
            random_x({2, 3, 4, 4}));
}

TEST_CASE("mixed_bf16 BatchNormalization keeps float32 parameters and statistics", "[links][mixed]") {
    seed(3);
    const Array x = random_x({16, 6});
    auto [ref, mixed] = compare([] { return std::make_shared<L::BatchNormalization>(6); }, x, true);
    check_param_dtype(*mixed, "/gamma", Dtype::kFloat32);
    auto& bn_ref = dynamic_cast<L::BatchNormalization&>(*ref);
    auto& bn_mixed = dynamic_cast<L::BatchNormalization&>(*mixed);
    CHECK(bn_mixed.avg_mean.dtype() == Dtype::kFloat32);
    CHECK(bn_mixed.avg_var.dtype() == Dtype::kFloat32);
    // The running statistics came from the same (rounded) batch, accumulated in float32.
    check_close_bf16(bn_mixed.avg_mean, bn_ref.avg_mean, 1, "avg_mean");
    check_close_bf16(bn_mixed.avg_var, bn_ref.avg_var, 1, "avg_var");

    // Test mode: normalised with the running statistics (float32) of each model.
    ConfigScope<bool> test{&Config::train, false};
    const Variable yr = bn_ref.forward(Variable(bf16_rounded(x)));
    Variable ym;
    {
        MixedBF16Scope scope;
        ym = bn_mixed.forward(Variable(x.astype(Dtype::kBFloat16)));
    }
    CHECK(ym.dtype() == Dtype::kBFloat16);
    check_close_bf16(ym.array(), yr.array(), 4, "test-mode forward");
}

TEST_CASE("mixed_bf16 BatchNormalization in test mode matches float32 forward and backward", "[links][mixed]") {
    seed(4);
    ConfigScope<bool> test{&Config::train, false};
    compare(
        [] {
            seed(40);  // the same statistics in both models (share_rounded_params shares parameters only)
            auto bn = std::make_shared<L::BatchNormalization>(5);
            bn->avg_mean.assign(ops::uniform({5}, -0.5, 0.5));
            bn->avg_var.assign(ops::uniform({5}, 0.5, 2));
            return bn;
        },
        random_x({8, 5, 3}), true);
}

TEST_CASE("mixed_bf16 LayerNormalization and GroupNormalization keep float32 parameters", "[links][mixed]") {
    seed(5);
    auto [ln_ref, ln] = compare([] { return std::make_shared<L::LayerNormalization>(12); }, random_x({6, 12}), true);
    check_param_dtype(*ln, "/gamma", Dtype::kFloat32);
    check_param_dtype(*ln, "/beta", Dtype::kFloat32);
    auto [gn_ref, gn] =
        compare([] { return std::make_shared<L::GroupNormalization>(2, 6); }, random_x({4, 6, 3, 3}), true);
    check_param_dtype(*gn, "/gamma", Dtype::kFloat32);
    // Outside the mixed config they follow config().dtype, as before.
    ConfigScope<Dtype> f16{&Config::dtype, Dtype::kFloat16};
    CHECK(L::LayerNormalization(4).gamma.dtype() == Dtype::kFloat16);
}

TEST_CASE("mixed_bf16 BatchRenormalization keeps float32 parameters and runs on bfloat16", "[links][mixed]") {
    seed(6);
    compare([] { return std::make_shared<L::BatchRenormalization>(4); }, random_x({16, 4}), true);
}

TEST_CASE("mixed_bf16 DecorrelatedBatchNormalization keeps float32 statistics", "[links][mixed]") {
    seed(9);
    auto [ref, mixed] =
        compare([] { return std::make_shared<L::DecorrelatedBatchNormalization>(4, 2); }, random_x({16, 4, 3}), true);
    auto& dbn = dynamic_cast<L::DecorrelatedBatchNormalization&>(*mixed);
    CHECK(dbn.avg_mean.dtype() == Dtype::kFloat32);
    CHECK(dbn.avg_projection.dtype() == Dtype::kFloat32);
}

TEST_CASE("mixed_bf16 EmbedID feeding a Linear matches float32", "[links][mixed]") {
    seed(7);
    const Array ids = ops::randint(0, 10, {6}, Dtype::kInt32);
    auto [ref, mixed] = compare(
        [] {
            return std::make_shared<L::Sequential>(
                std::vector<L::Layer>{std::make_shared<L::EmbedID>(10, 8), std::make_shared<L::Linear>(8, 5)});
        },
        ids);
    check_param_dtype(*mixed, "/0/W", Dtype::kBFloat16);
}

TEST_CASE("mixed_bf16 LSTM over two steps matches float32", "[links][mixed]") {
    seed(8);
    const Array x1 = random_x({4, 6}), x2 = random_x({4, 6});
    compare([] { return std::make_shared<L::LSTM>(6, 5); }, x1, false,
            [x2](L::Link& link, const Variable& x) {
                auto& lstm = dynamic_cast<L::LSTM&>(link);
                lstm.reset_state();
                const Variable h1 = lstm.forward(x);
                const Variable h2 = lstm.forward(Variable(config().mixed16 ? x2 : bf16_rounded(x2), false));
                return F::concat({h1, h2}, 1);
            });
}

TEST_CASE("mixed_bf16 leaves dtype mismatches outside the mixed config to the functions", "[links][mixed]") {
    std::shared_ptr<L::Linear> linear;
    {
        MixedBF16Scope scope;
        linear = std::make_shared<L::Linear>(4, 3);
    }
    CHECK_THROWS_WITH(linear->forward(Variable(ops::ones({2, 4}, Dtype::kFloat32))),
                      Catch::Contains("linear: Expect: W.dtype == x.dtype, Actual: bfloat16 != float32"));
}
