// Variable: aliasing, accessors, grads, cleargrad/zerograd, item, as_array/as_variable,
// to_device, retained inputs turned back into Variables.

#include <catch2/catch.hpp>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::test::scalar;
using rensa::test::var;

TEST_CASE("variable: a handle whose copies alias", "[autograd]") {
    const Variable x = var({1, 2, 3, 4, 5, 6}, {2, 3});
    const Variable alias = x;  // NOLINT(performance-unnecessary-copy-initialization)
    alias.set_grad(ops::ones({2, 3}, Dtype::kFloat64));
    CHECK(x.grad().defined());
    CHECK(x == alias);
    CHECK(x.shape() == Shape{2, 3});
    CHECK(x.dtype() == Dtype::kFloat64);
    CHECK(x.device() == Device::native());
    CHECK(x.ndim() == 2);
    CHECK(x.size() == 6);
    CHECK(x.requires_grad());
    CHECK(x.creator() == nullptr);
    CHECK(x.rank() == 0);
    CHECK_FALSE(Variable().defined());
    CHECK_THROWS_AS(Variable().array(), ValueError);
}

TEST_CASE("variable: cleargrad, zerograd and grad checks", "[autograd]") {
    const Variable x = var({1, 2}, {2});
    x.zerograd();
    rensa::testing::check_allclose(x.grad(), {0, 0}, {2}, {0, 0});
    x.cleargrad();
    CHECK_FALSE(x.grad().defined());
    CHECK_THROWS_AS(x.set_grad(ops::ones({2}, Dtype::kFloat32)), DtypeError);
    CHECK_THROWS_AS(x.set_grad(ops::ones({1, 2}, Dtype::kFloat64)), DimensionError);
}

TEST_CASE("variable: item, name, as_array and as_variable", "[autograd]") {
    const Variable x = scalar(2.5);
    CHECK(x.item() == 2.5);
    CHECK(x.item<float>() == 2.5f);
    CHECK_THROWS_AS(var({1, 2}, {2}).item(), ValueError);
    x.set_name("loss");
    CHECK(x.name() == "loss");
    CHECK(x.node()->name() == "loss");
    const Array a = as_array(x * 2.0);
    CHECK(a.item<double>() == 5.0);
    const Variable v = as_variable(a);
    CHECK_FALSE(v.requires_grad());
    CHECK(v.array().storage() == a.storage());
}

TEST_CASE("variable: set_array updates the node's metadata", "[autograd]") {
    const Variable x = var({1, 2}, {2});
    x.set_array(ops::ones({3, 1}, Dtype::kFloat32));
    CHECK(x.node()->shape() == Shape{3, 1});
    CHECK(x.node()->dtype() == Dtype::kFloat32);
}

TEST_CASE("variable: to_device moves array and grad (native to native is a no-op)", "[autograd]") {
    const Variable x = var({1, 2}, {2});
    x.zerograd();
    const Array before = x.array();
    x.to_device(Device::native());
    CHECK(x.array().storage() == before.storage());
    CHECK(x.grad().defined());
}

TEST_CASE("variable: a retained input whose Variable is gone is rebuilt on the graph", "[autograd]") {
    const Variable x = scalar(0.7);
    Variable y;
    {
        const Variable h = x * 2.0;  // h is dropped; sin retains it for backward
        y = test::sin(h);
    }
    const Variable g = grad({y}, {x}, {}, {.enable_double_backprop = true})[0];
    CHECK(g.item() == Approx(2 * std::cos(1.4)));
    CHECK(grad({g}, {x})[0].item() == Approx(-4 * std::sin(1.4)));  // through the rebuilt h
}

TEST_CASE("variable: a FunctionNode applies once and checks its inputs", "[autograd]") {
    const auto node = std::make_shared<test::SinNode>();
    const Variable x = scalar(1.0);
    (void)node->apply({x});
    CHECK_THROWS_AS(node->apply({x}), ValueError);
    CHECK_THROWS_AS(std::make_shared<test::SinNode>()->apply({Variable()}), ValueError);
    CHECK(node->label() == "SinNode");
}

TEST_CASE("variable: without_array gives a defined variable that takes its array later") {
    const Variable v = Variable::without_array(true, "W");
    CHECK(v.defined());
    CHECK_FALSE(v.array().defined());
    CHECK(v.name() == "W");
    v.set_array(ops::ones({2, 3}));
    CHECK(v.shape() == Shape{2, 3});
    CHECK(v.node()->shape() == Shape{2, 3});
}
