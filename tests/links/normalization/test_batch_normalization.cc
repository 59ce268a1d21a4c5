// L::BatchNormalization: registration and Chainer's names, the training, fine-tuning and
// testing paths against hand-computed values, lazy sizes, gradients and copies.

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/normalization.h"
#include "links/normalization/batch_normalization.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Columns {1, 2, 3, 4} (mean 2.5, var 1.25, unbiased 5/3) and {0, 0, 2, 2} (mean 1, var 1,
// unbiased 4/3).
Array batch() { return f64({1, 0, 2, 0, 3, 2, 4, 2}, {4, 2}); }
constexpr double kMean[] = {2.5, 1.0}, kVar[] = {1.25, 1.0}, kUnbiased[] = {5.0 / 3.0, 4.0 / 3.0};

std::vector<double> normalized(const std::vector<double>& mean, const std::vector<double>& var, double eps,
                               const std::vector<double>& gamma = {1, 1}, const std::vector<double>& beta = {0, 0}) {
    const std::vector<double> x = to_doubles(batch());
    std::vector<double> y;
    for (size_t i = 0; i < x.size(); ++i) {
        const size_t c = i % 2;
        y.push_back((x[i] - mean[c]) / std::sqrt(var[c] + eps) * gamma[c] + beta[c]);
    }
    return y;
}

L::BatchNormalizationOptions f64_options() { return {.dtype = Dtype::kFloat64}; }

std::vector<std::string> names_of_persistents(L::Link& link) {
    std::vector<std::string> names;
    for (const auto& [name, ref] : link.own_persistents()) names.push_back(name);
    return names;
}

}  // namespace

TEST_CASE("BatchNormalization registers the names of Chainer and initial values", "[links][normalization]") {
    L::BatchNormalization bn(3);
    const auto params = bn.namedparams();
    REQUIRE(params.size() == 2);
    CHECK(params[0].first == "/gamma");
    CHECK(params[1].first == "/beta");
    CHECK(names_of_persistents(bn) == std::vector<std::string>{"N", "avg_mean", "avg_var"});
    CHECK(bn.gamma.shape() == Shape{3});
    CHECK(bn.gamma.dtype() == Dtype::kFloat32);
    CHECK(to_doubles(bn.gamma.array()) == std::vector<double>{1, 1, 1});
    CHECK(to_doubles(bn.beta.array()) == std::vector<double>{0, 0, 0});
    CHECK(to_doubles(bn.avg_mean) == std::vector<double>{0, 0, 0});
    CHECK(to_doubles(bn.avg_var) == std::vector<double>{1, 1, 1});
    CHECK(bn.N == 0);
    CHECK(bn.decay == 0.9);
    CHECK(bn.eps == 2e-5);
    CHECK(std::get<int64_t*>(bn.persistent("N")) == &bn.N);
    CHECK(bn.persistent_array("avg_mean").storage() == bn.avg_mean.storage());
}

TEST_CASE("BatchNormalization keeps float32 statistics for float16 inputs", "[links][normalization]") {
    L::BatchNormalization bn(Shape{2, 3}, {.dtype = Dtype::kFloat16});
    CHECK(bn.gamma.shape() == Shape{2, 3});
    CHECK(bn.gamma.dtype() == Dtype::kFloat32);
    CHECK(bn.avg_var.dtype() == Dtype::kFloat32);
    L::BatchNormalization bn64(2, f64_options());
    CHECK(bn64.beta.dtype() == Dtype::kFloat64);
    CHECK(bn64.avg_mean.dtype() == Dtype::kFloat64);
}

TEST_CASE("BatchNormalization takes initial values", "[links][normalization]") {
    L::BatchNormalization bn(2, {.initial_gamma = initializers::constant(2),
                                 .initial_beta = initializers::constant(-1),
                                 .initial_avg_mean = initializers::constant(0.5),
                                 .initial_avg_var = initializers::constant(3)});
    CHECK(to_doubles(bn.gamma.array()) == std::vector<double>{2, 2});
    CHECK(to_doubles(bn.beta.array()) == std::vector<double>{-1, -1});
    CHECK(to_doubles(bn.avg_mean) == std::vector<double>{0.5, 0.5});
    CHECK(to_doubles(bn.avg_var) == std::vector<double>{3, 3});
}

TEST_CASE("BatchNormalization in training normalizes by the batch and updates the averages", "[links][normalization]") {
    L::BatchNormalization bn(2, f64_options());
    const Variable y = bn(Variable(batch()));
    check_allclose(y.array(), normalized({kMean[0], kMean[1]}, {kVar[0], kVar[1]}, 2e-5), {4, 2}, {1e-12, 1e-10});
    // avg = decay * avg + (1 - decay) * batch statistic, the variance unbiased.
    check_allclose(bn.avg_mean, {0.1 * kMean[0], 0.1 * kMean[1]}, {2}, {1e-12, 1e-12});
    check_allclose(bn.avg_var, {0.9 + 0.1 * kUnbiased[0], 0.9 + 0.1 * kUnbiased[1]}, {2}, {1e-12, 1e-12});
    CHECK(bn.N == 0);
    (void)bn(Variable(batch()));
    check_allclose(bn.avg_mean, {0.19 * kMean[0], 0.19 * kMean[1]}, {2}, {1e-12, 1e-12});
}

TEST_CASE("BatchNormalization uses its decay", "[links][normalization]") {
    L::BatchNormalization bn(2, {.decay = 0.5, .dtype = Dtype::kFloat64});
    (void)bn(Variable(batch()));
    check_allclose(bn.avg_mean, {0.5 * kMean[0], 0.5 * kMean[1]}, {2}, {1e-12, 1e-12});
    check_allclose(bn.avg_var, {0.5 + 0.5 * kUnbiased[0], 0.5 + 0.5 * kUnbiased[1]}, {2}, {1e-12, 1e-12});
}

TEST_CASE("BatchNormalization fine-tuning averages the batch statistics", "[links][normalization]") {
    L::BatchNormalization bn(2, f64_options());
    (void)bn.forward(Variable(batch()), {.finetune = true});
    CHECK(bn.N == 1);  // decay 1 - 1/1 = 0: the averages become the batch's statistics
    check_allclose(bn.avg_mean, {kMean[0], kMean[1]}, {2}, {1e-12, 1e-12});
    check_allclose(bn.avg_var, {kUnbiased[0], kUnbiased[1]}, {2}, {1e-12, 1e-12});
    // A second batch x + 2: decay 1/2 gives the mean of both batches' means.
    (void)bn.forward(Variable(ops::add(batch(), 2.0)), {.finetune = true});
    CHECK(bn.N == 2);
    check_allclose(bn.avg_mean, {kMean[0] + 1, kMean[1] + 1}, {2}, {1e-12, 1e-12});
    check_allclose(bn.avg_var, {kUnbiased[0], kUnbiased[1]}, {2}, {1e-12, 1e-12});
    bn.start_finetuning();
    CHECK(bn.N == 0);
}

TEST_CASE("BatchNormalization in test mode uses the averages and keeps them", "[links][normalization]") {
    L::BatchNormalization bn(2, f64_options());
    bn.avg_mean.assign(f64({1.0, -1.0}, {2}));
    bn.avg_var.assign(f64({4.0, 0.25}, {2}));
    bn.gamma.array().assign(f64({2.0, 3.0}, {2}));
    bn.beta.array().assign(f64({0.5, -0.5}, {2}));
    ConfigScope eval{&Config::train, false};
    const Variable y = bn.forward(Variable(batch()), {.finetune = true});
    check_allclose(y.array(), normalized({1.0, -1.0}, {4.0, 0.25}, 2e-5, {2, 3}, {0.5, -0.5}), {4, 2}, {1e-12, 1e-10});
    CHECK(to_doubles(bn.avg_mean) == std::vector<double>{1.0, -1.0});
    CHECK(to_doubles(bn.avg_var) == std::vector<double>{4.0, 0.25});
    CHECK(bn.N == 0);
}

TEST_CASE("BatchNormalization without gamma and beta has no parameters", "[links][normalization]") {
    L::BatchNormalization bn(2, {.dtype = Dtype::kFloat64, .use_gamma = false, .use_beta = false});
    CHECK(bn.params().empty());
    CHECK_FALSE(bn.gamma.defined());
    CHECK(names_of_persistents(bn) == std::vector<std::string>{"N", "avg_mean", "avg_var"});
    const Variable y = bn(Variable(batch()));
    check_allclose(y.array(), normalized({kMean[0], kMean[1]}, {kVar[0], kVar[1]}, 2e-5), {4, 2}, {1e-12, 1e-10});
    L::BatchNormalization only_beta(2, {.use_gamma = false});
    REQUIRE(only_beta.namedparams().size() == 1);
    CHECK(only_beta.namedparams()[0].first == "/beta");
}

TEST_CASE("BatchNormalization of images matches F::batch_normalization", "[links][normalization]") {
    seed(3);
    L::BatchNormalization bn(3);
    bn.gamma.array().assign(ops::uniform({3}, 0.5, 1.5));
    bn.beta.array().assign(ops::uniform({3}));
    const Array x = ops::uniform({2, 3, 4, 5});
    const Variable y = bn(Variable(x));
    CHECK(y.shape() == Shape{2, 3, 4, 5});
    check_allclose(y.array(), F::batch_normalization(Variable(x), bn.gamma, bn.beta).array());
    ConfigScope eval{&Config::train, false};
    const Variable z = bn(Variable(x));
    check_allclose(z.array(), F::fixed_batch_normalization(Variable(x), bn.gamma, bn.beta, Variable(bn.avg_mean),
                                                           Variable(bn.avg_var))
                                  .array());
}

TEST_CASE("BatchNormalization learns its size from the axis", "[links][normalization]") {
    L::BatchNormalization bn(std::nullopt, {.axis = Axes{0, 2, 3}});
    CHECK_FALSE(bn.gamma.is_initialized());
    CHECK_FALSE(bn.avg_mean.defined());
    CHECK(bn.params(false).empty());
    const Array x = ops::uniform({2, 3, 2, 2});
    const Variable y = bn(Variable(x));
    CHECK(bn.gamma.shape() == Shape{3});
    CHECK(bn.avg_mean.shape() == Shape{3});
    check_allclose(y.array(), F::batch_normalization(Variable(x), bn.gamma, bn.beta, {.axis = Axes{0, 2, 3}}).array());
    L::BatchNormalization per_feature(std::nullopt, {.axis = Axes{0}});
    (void)per_feature(Variable(ops::uniform({4, 3, 2})));
    CHECK(per_feature.beta.shape() == Shape{3, 2});
    L::BatchNormalization negative(std::nullopt, {.axis = Axes{0, -1}});
    (void)negative(Variable(ops::uniform({4, 3, 2})));
    CHECK(negative.avg_var.shape() == Shape{3});
}

TEST_CASE("BatchNormalization reports bad sizes and axes", "[links][normalization]") {
    CHECK_THROWS_AS(L::BatchNormalization(std::nullopt), ValueError);
    CHECK_THROWS_WITH(L::BatchNormalization(std::nullopt), Catch::Contains("size or axis is required"));
    CHECK_THROWS_AS(L::BatchNormalization(2, {.dtype = Dtype::kInt32}), DtypeError);
    L::BatchNormalization bn(std::nullopt, {.axis = Axes{0, 3}});
    CHECK_THROWS_AS(bn(Variable(ops::uniform({2, 3}))), DimensionError);
    L::BatchNormalization sized(3);
    CHECK_THROWS_AS(sized(Variable(ops::uniform({4, 2}))), DimensionError);
}

TEST_CASE("BatchNormalization gradients in training and test mode", "[links][normalization]") {
    seed(5);
    L::BatchNormalization bn(3, f64_options());
    bn.gamma.array().assign(ops::uniform({3}, 0.5, 1.5, Dtype::kFloat64));
    bn.beta.array().assign(ops::uniform({3}, -1, 1, Dtype::kFloat64));
    const Array x = ops::uniform({4, 3, 2}, -1, 1, Dtype::kFloat64);
    const Array gy = ops::uniform({4, 3, 2}, -1, 1, Dtype::kFloat64);
    const auto f = [&bn](const std::vector<Variable>& xs) { return bn(xs[0]); };
    check_link_backward(f, {x}, {bn.gamma, bn.beta}, gy);
    bn.avg_var.assign(ops::uniform({3}, 0.5, 2, Dtype::kFloat64));
    ConfigScope eval{&Config::train, false};
    check_link_backward(f, {x}, {bn.gamma, bn.beta}, gy);
}

TEST_CASE("BatchNormalization copies share or copy the statistics", "[links][normalization]") {
    L::BatchNormalization bn(2, f64_options());
    bn.N = 4;
    const auto shared = std::dynamic_pointer_cast<L::BatchNormalization>(bn.copy(L::CopyMode::kShare));
    REQUIRE(shared);
    CHECK(shared->gamma.array().storage() == bn.gamma.array().storage());
    CHECK_FALSE(shared->gamma == bn.gamma);
    CHECK(shared->avg_mean.storage() == bn.avg_mean.storage());
    CHECK(shared->N == 4);
    CHECK(shared->decay == bn.decay);
    // The copy's registry reaches the copy's own members.
    CHECK(std::get<int64_t*>(shared->persistent("N")) == &shared->N);
    (void)(*shared)(Variable(batch()));
    check_allclose(bn.avg_mean, {0.1 * kMean[0], 0.1 * kMean[1]}, {2}, {1e-12, 1e-12});

    const auto deep = std::dynamic_pointer_cast<L::BatchNormalization>(bn.copy(L::CopyMode::kCopy));
    REQUIRE(deep);
    CHECK(deep->avg_mean.storage() != bn.avg_mean.storage());
    CHECK(deep->gamma.array().storage() != bn.gamma.array().storage());
    (void)(*deep)(Variable(batch()));
    check_allclose(bn.avg_mean, {0.1 * kMean[0], 0.1 * kMean[1]}, {2}, {1e-12, 1e-12});
    check_allclose(deep->avg_mean, {0.19 * kMean[0], 0.19 * kMean[1]}, {2}, {1e-12, 1e-12});
}

TEST_CASE("BatchNormalization saves and loads the NPZ keys of Chainer", "[links][normalization]") {
    L::BatchNormalization bn(2, f64_options());
    (void)bn.forward(Variable(batch()), {.finetune = true});
    bn.gamma.array().assign(f64({2.0, 3.0}, {2}));
    L::BatchNormalization target(2, f64_options());
    const std::vector<std::string> keys = npz_round_trip(bn, target);
    CHECK(keys == std::vector<std::string>{"N", "avg_mean", "avg_var", "beta", "gamma"});
    CHECK(target.N == 1);
    CHECK(to_doubles(target.gamma.array()) == std::vector<double>{2.0, 3.0});
    check_allclose(target.avg_mean, {kMean[0], kMean[1]}, {2}, {1e-12, 1e-12});
    check_allclose(target.avg_var, {kUnbiased[0], kUnbiased[1]}, {2}, {1e-12, 1e-12});
}

TEST_CASE("BatchNormalization loads into a lazy link", "[links][normalization]") {
    L::BatchNormalization bn(3, f64_options());  // float64 in the file, float32 in the link
    bn.avg_mean.fill(0.5);
    bn.gamma.array().fill(2.0);
    L::BatchNormalization lazy(std::nullopt, {.axis = Axes{0}});
    (void)npz_round_trip(bn, lazy);
    REQUIRE(lazy.gamma.is_initialized());
    CHECK(to_doubles(lazy.gamma.array()) == std::vector<double>{2, 2, 2});
    REQUIRE(lazy.avg_mean.defined());
    CHECK(to_doubles(lazy.avg_mean) == std::vector<double>{0.5, 0.5, 0.5});
    ConfigScope eval{&Config::train, false};
    const Variable y = lazy(Variable(ops::zeros({2, 3})));
    CHECK(y.dtype() == Dtype::kFloat32);
    CHECK(lazy.avg_mean.dtype() == Dtype::kFloat32);
    check_allclose(y.array(), std::vector<double>(6, -0.5 / std::sqrt(1 + 2e-5) * 2), {2, 3}, {1e-6, 1e-5});
}

TEST_CASE("BatchNormalization on CUDA matches the CPU and moves back", "[links][normalization][cuda]") {
    if (!has_cuda()) return;
    L::BatchNormalization cpu(2, f64_options());
    const auto gpu = std::dynamic_pointer_cast<L::BatchNormalization>(cpu.copy(L::CopyMode::kCopy));
    gpu->to_device(Device::cuda(0));
    CHECK(gpu->gamma.device() == Device::cuda(0));
    CHECK(gpu->avg_mean.device() == Device::cuda(0));
    const Variable y_cpu = cpu(Variable(batch()));
    const Variable y_gpu = (*gpu)(Variable(batch().to_device(Device::cuda(0))));
    CHECK(y_gpu.device() == Device::cuda(0));
    check_allclose(y_gpu.array().to_device(Device::native()), y_cpu.array());
    gpu->to_device(Device::native());
    CHECK(gpu->avg_var.device() == Device::native());
    check_allclose(gpu->avg_mean, cpu.avg_mean);
    check_allclose(gpu->avg_var, cpu.avg_var);
    // A lazy link creates its statistics on its device.
    L::BatchNormalization lazy(std::nullopt, {.axis = Axes{0}});
    lazy.to_device(Device::cuda(0));
    (void)lazy(Variable(ops::uniform({3, 2}, 0, 1, Dtype::kFloat32, Device::cuda(0))));
    CHECK(lazy.avg_mean.device() == Device::cuda(0));
    CHECK(lazy.gamma.device() == Device::cuda(0));
}
