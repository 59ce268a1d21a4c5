// L::PReLU: its slope parameter, values, broadcasting over the batch, gradients and NPZ keys.

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "core/ops/random.h"
#include "core/random.h"
#include "functions/activation.h"
#include "links/activation/prelu.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("PReLU holds a slope W of 0.25", "[links][activation]") {
    L::PReLU prelu;
    const auto params = prelu.namedparams();
    REQUIRE(params.size() == 1);
    CHECK(params[0].first == "/W");
    CHECK(prelu.W.shape() == Shape{});
    CHECK(prelu.W.item<double>() == 0.25);
    L::PReLU shaped(Shape{3}, 0.5);
    CHECK(to_doubles(shaped.W.array()) == std::vector<double>{0.5, 0.5, 0.5});
    L::PReLU initialized(Shape{2}, std::make_shared<initializers::Constant>(-1.0, Dtype::kFloat64));
    CHECK(initialized.W.dtype() == Dtype::kFloat64);
}

TEST_CASE("PReLU scales negative inputs by W per channel", "[links][activation]") {
    L::PReLU prelu(Shape{2});
    prelu.W.array().assign(f64({0.5, 2.0}, {2}));
    const Variable y = prelu(Variable(f64({-2, 3, 4, -1}, {2, 2}).astype(Dtype::kFloat32)));
    CHECK(to_doubles(y.array()) == std::vector<double>{-1, 3, 4, -2});
    L::PReLU scalar;
    const Array x = ops::uniform({2, 3, 4}, -1, 1);
    check_allclose(scalar(Variable(x)).array(), F::prelu(Variable(x), scalar.W).array());
    CHECK_THROWS_AS(prelu(Variable(ops::uniform({2, 3}))), DimensionError);
}

TEST_CASE("PReLU gradients", "[links][activation]") {
    seed(17);
    L::PReLU prelu(Shape{3}, std::make_shared<initializers::Uniform>(1.0, Dtype::kFloat64));
    const auto f = [&prelu](const std::vector<Variable>& xs) { return prelu(xs[0]); };
    const ValueGenerator values = away_from({0.0});
    const Array x = f64(values(24, 1), {2, 3, 4});
    check_link_backward(f, {x}, {prelu.W}, ops::uniform({2, 3, 4}, -1, 1, Dtype::kFloat64));
}

TEST_CASE("PReLU saves W and copies it", "[links][activation]") {
    L::PReLU prelu(Shape{2}, 0.1);
    L::PReLU target(Shape{2});
    CHECK(npz_round_trip(prelu, target) == std::vector<std::string>{"W"});
    check_allclose(target.W.array(), {0.1, 0.1}, {2}, {1e-7, 1e-6});
    const auto shared = std::dynamic_pointer_cast<L::PReLU>(prelu.copy());
    REQUIRE(shared);
    CHECK(shared->W.array().storage() == prelu.W.array().storage());
    CHECK(shared->params()[0] == shared->W);
}

TEST_CASE("PReLU on CUDA matches the CPU", "[links][activation][cuda]") {
    if (!has_cuda()) return;
    L::PReLU prelu(Shape{3});
    const Array x = ops::uniform({2, 3}, -1, 1);
    const Variable y = prelu(Variable(x));
    prelu.to_device(Device::cuda(0));
    CHECK(prelu.W.device() == Device::cuda(0));
    check_allclose(prelu(Variable(x.to_device(Device::cuda(0)))).array().to_device(Device::native()), y.array());
    prelu.to_device(Device::native());
    CHECK(prelu.W.device() == Device::native());
}
