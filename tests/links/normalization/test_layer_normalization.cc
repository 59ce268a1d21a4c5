// L::LayerNormalization: names, values against a hand-written reference, lazy size,
// gradients, copies and errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "core/ops/random.h"
#include "core/random.h"
#include "functions/math.h"
#include "functions/normalization.h"
#include "links/normalization/layer_normalization.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

initializers::InitializerPtr f64_constant(double value) {
    return std::make_shared<initializers::Constant>(value, Dtype::kFloat64);
}

}  // namespace

TEST_CASE("LayerNormalization registers gamma and beta", "[links][normalization]") {
    L::LayerNormalization ln(4);
    const auto params = ln.namedparams();
    REQUIRE(params.size() == 2);
    CHECK(params[0].first == "/gamma");
    CHECK(params[1].first == "/beta");
    CHECK(ln.own_persistents().empty());
    CHECK(to_doubles(ln.gamma.array()) == std::vector<double>{1, 1, 1, 1});
    CHECK(to_doubles(ln.beta.array()) == std::vector<double>{0, 0, 0, 0});
    CHECK(ln.gamma.dtype() == Dtype::kFloat32);
    CHECK(ln.eps == 1e-6);
}

TEST_CASE("LayerNormalization normalizes each row", "[links][normalization]") {
    L::LayerNormalization ln(3, 1e-6, f64_constant(2), f64_constant(0.5));
    const Array x = f64({1, 2, 3, 0, 0, 6}, {2, 3});
    const Variable y = ln(Variable(x));
    // Row 0: mean 2, var 2/3; row 1: mean 2, var 8.
    std::vector<double> expected;
    const double mean = 2, var[] = {2.0 / 3.0, 8.0};
    const std::vector<double> xv = to_doubles(x);
    for (size_t i = 0; i < xv.size(); ++i) expected.push_back((xv[i] - mean) / std::sqrt(var[i / 3] + 1e-6) * 2 + 0.5);
    check_allclose(y.array(), expected, {2, 3}, {1e-12, 1e-10});
}

TEST_CASE("LayerNormalization learns its size lazily", "[links][normalization]") {
    L::LayerNormalization ln;
    CHECK_FALSE(ln.gamma.is_initialized());
    CHECK(ln.params(false).empty());
    CHECK(ln.params(true).size() == 2);
    const Array x = ops::uniform({3, 5});
    const Variable y = ln(Variable(x));
    CHECK(ln.gamma.shape() == Shape{5});
    CHECK(ln.beta.shape() == Shape{5});
    check_allclose(y.array(), F::layer_normalization(Variable(x), ln.gamma, ln.beta, 1e-6).array());
    CHECK_THROWS_AS(L::LayerNormalization()(Variable(ops::uniform({5}))), DimensionError);
    CHECK_THROWS_AS(ln(Variable(ops::uniform({3, 4}))), DimensionError);
}

TEST_CASE("LayerNormalization gradients", "[links][normalization]") {
    seed(11);
    L::LayerNormalization ln(4, 1e-6, f64_constant(1), f64_constant(0));
    ln.gamma.array().assign(ops::uniform({4}, 0.5, 1.5, Dtype::kFloat64));
    ln.beta.array().assign(ops::uniform({4}, -1, 1, Dtype::kFloat64));
    const auto f = [&ln](const std::vector<Variable>& xs) { return ln(xs[0]); };
    check_link_backward(f, {ops::uniform({3, 4}, -1, 1, Dtype::kFloat64)}, {ln.gamma, ln.beta},
                        ops::uniform({3, 4}, -1, 1, Dtype::kFloat64));
}

TEST_CASE("LayerNormalization copies", "[links][normalization]") {
    L::LayerNormalization ln(2, 1e-3);
    const auto copy = std::dynamic_pointer_cast<L::LayerNormalization>(ln.copy(L::CopyMode::kCopy));
    REQUIRE(copy);
    CHECK(copy->eps == 1e-3);
    CHECK(copy->gamma.array().storage() != ln.gamma.array().storage());
    CHECK(copy->namedparams()[0].second == copy->gamma);
    const auto fresh = std::dynamic_pointer_cast<L::LayerNormalization>(ln.copy(L::CopyMode::kInit));
    REQUIRE(fresh);
    ln.gamma.array().fill(3.0);
    CHECK(to_doubles(fresh->gamma.array()) == std::vector<double>{1, 1});
}

TEST_CASE("LayerNormalization saves and loads gamma and beta", "[links][normalization]") {
    L::LayerNormalization ln(3);
    ln.beta.array().fill(0.25);
    L::LayerNormalization lazy;
    CHECK(npz_round_trip(ln, lazy) == std::vector<std::string>{"beta", "gamma"});
    REQUIRE(lazy.beta.is_initialized());
    CHECK(to_doubles(lazy.beta.array()) == std::vector<double>{0.25, 0.25, 0.25});
}

// The link check must be able to fail: a term hidden from backward (gamma's values
// added as a constant) changes the numerical derivative only.
TEST_CASE("check_link_backward detects a wrong parameter gradient", "[links][normalization][!shouldfail]") {
    seed(12);
    L::LayerNormalization ln(4, 1e-6, f64_constant(1), f64_constant(0));
    const auto f = [&ln](const std::vector<Variable>& xs) {
        return F::add(ln(xs[0]), Variable(ln.gamma.array().copy(), false));
    };
    check_link_backward(f, {ops::uniform({3, 4}, -1, 1, Dtype::kFloat64)}, {ln.gamma, ln.beta},
                        ops::uniform({3, 4}, -1, 1, Dtype::kFloat64));
}

TEST_CASE("LayerNormalization on CUDA matches the CPU", "[links][normalization][cuda]") {
    if (!has_cuda()) return;
    L::LayerNormalization ln;
    ln.to_device(Device::cuda(0));
    const Array x = ops::uniform({3, 5});
    const Variable y = ln(Variable(x.to_device(Device::cuda(0))));
    CHECK(ln.gamma.device() == Device::cuda(0));
    ln.to_device(Device::native());
    check_allclose(y.array().to_device(Device::native()), ln(Variable(x)).array());
}
