// L::GroupNormalization: names, values against F::group_normalization and a hand-written
// case, lazy size, gradients and errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "core/ops/random.h"
#include "core/random.h"
#include "functions/normalization.h"
#include "links/normalization/group_normalization.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

initializers::InitializerPtr f64_constant(double value) {
    return std::make_shared<initializers::Constant>(value, Dtype::kFloat64);
}

}  // namespace

TEST_CASE("GroupNormalization registers gamma and beta", "[links][normalization]") {
    L::GroupNormalization gn(2, 4);
    const auto params = gn.namedparams();
    REQUIRE(params.size() == 2);
    CHECK(params[0].first == "/gamma");
    CHECK(params[1].first == "/beta");
    CHECK(gn.groups == 2);
    CHECK(gn.eps == 1e-5);
    CHECK(gn.gamma.shape() == Shape{4});
    CHECK(to_doubles(gn.gamma.array()) == std::vector<double>{1, 1, 1, 1});
    CHECK(to_doubles(gn.beta.array()) == std::vector<double>{0, 0, 0, 0});
}

TEST_CASE("GroupNormalization normalizes each group", "[links][normalization]") {
    // One sample, 2 channels of 2 values in one group: mean 2.5, var 1.25.
    L::GroupNormalization gn(1, 2, 1e-5, f64_constant(1), f64_constant(0));
    gn.gamma.array().assign(f64({1, 2}, {2}));
    gn.beta.array().assign(f64({0, 1}, {2}));
    const Variable y = gn(Variable(f64({1, 2, 3, 4}, {1, 2, 2})));
    const double s = std::sqrt(1.25 + 1e-5);
    check_allclose(y.array(), {-1.5 / s, -0.5 / s, 2 * 0.5 / s + 1, 2 * 1.5 / s + 1}, {1, 2, 2}, {1e-12, 1e-10});
}

TEST_CASE("GroupNormalization learns its channels lazily", "[links][normalization]") {
    L::GroupNormalization gn(3);
    CHECK_FALSE(gn.beta.is_initialized());
    const Array x = ops::uniform({2, 6, 3, 2});
    const Variable y = gn(Variable(x));
    CHECK(gn.gamma.shape() == Shape{6});
    CHECK(y.shape() == Shape{2, 6, 3, 2});
    check_allclose(y.array(), F::group_normalization(Variable(x), 3, gn.gamma, gn.beta).array());
}

TEST_CASE("GroupNormalization reports bad groups and inputs", "[links][normalization]") {
    CHECK_THROWS_AS(L::GroupNormalization(0), ValueError);
    CHECK_THROWS_AS(L::GroupNormalization(2)(Variable(ops::uniform({4}))), DimensionError);
    CHECK_THROWS_AS(L::GroupNormalization(4)(Variable(ops::uniform({2, 6, 3}))), ValueError);  // 4 does not divide 6
}

TEST_CASE("GroupNormalization gradients", "[links][normalization]") {
    seed(13);
    L::GroupNormalization gn(2, 4, 1e-5, f64_constant(1), f64_constant(0));
    gn.gamma.array().assign(ops::uniform({4}, 0.5, 1.5, Dtype::kFloat64));
    gn.beta.array().assign(ops::uniform({4}, -1, 1, Dtype::kFloat64));
    const auto f = [&gn](const std::vector<Variable>& xs) { return gn(xs[0]); };
    check_link_backward(f, {ops::uniform({2, 4, 3}, -1, 1, Dtype::kFloat64)}, {gn.gamma, gn.beta},
                        ops::uniform({2, 4, 3}, -1, 1, Dtype::kFloat64));
}

TEST_CASE("GroupNormalization saves and loads gamma and beta", "[links][normalization]") {
    L::GroupNormalization gn(2, 4);
    gn.gamma.array().fill(1.5);
    L::GroupNormalization target(2, 4);
    CHECK(npz_round_trip(gn, target) == std::vector<std::string>{"beta", "gamma"});
    CHECK(to_doubles(target.gamma.array()) == std::vector<double>{1.5, 1.5, 1.5, 1.5});
}

TEST_CASE("GroupNormalization and LayerNormalization on CUDA match the CPU", "[links][normalization][cuda]") {
    if (!has_cuda()) return;
    L::GroupNormalization gn(2);
    const Array x = ops::uniform({2, 4, 3});
    const Variable y = gn(Variable(x));
    gn.to_device(Device::cuda(0));
    CHECK(gn.beta.device() == Device::cuda(0));
    check_allclose(gn(Variable(x.to_device(Device::cuda(0)))).array().to_device(Device::native()), y.array());
    gn.to_device(Device::native());
    CHECK(gn.gamma.device() == Device::native());
}
