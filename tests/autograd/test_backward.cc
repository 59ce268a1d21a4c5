// The backward engine: seeds, accumulation on diamonds and reuse, long chains, branches
// without grads, graph release, retain_grad, loss_scale and double backprop.

#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::test::scalar;
using rensa::test::var;
using rensa::testing::check_allclose;

TEST_CASE("backward: a scalar output gets the implicit seed 1", "[autograd]") {
    const Variable x = scalar(3.0);
    const Variable y = x * x + 2.0 * x;  // dy/dx = 2x + 2
    y.backward();
    CHECK(x.grad().item<double>() == 8.0);
    CHECK(y.grad().item<double>() == 1.0);  // the seed stays on the output, as in Chainer
}

TEST_CASE("backward: diamonds accumulate the grads of both paths", "[autograd]") {
    const Variable x = var({1.0, 2.0}, {2});
    const Variable a = x * 3.0;
    const Variable b = a * a;  // 9x^2
    const Variable c = a + 1.0;
    const Variable y = sum(b * c);  // (9x^2)(3x+1) = 27x^3 + 9x^2 -> 81x^2 + 18x
    y.backward();
    check_allclose(x.grad(), {81 + 18, 81 * 4 + 36}, {2}, {1e-12, 1e-12});
}

TEST_CASE("backward: one variable reused many times", "[autograd]") {
    const Variable x = scalar(0.5);
    Variable y = x;
    for (int i = 0; i < 9; ++i) y = y + x;  // 10x
    Variable z = x * x * x * x;             // x^4 -> 4x^3
    (y + z).backward();
    CHECK(x.grad().item<double>() == Approx(10.0 + 4 * 0.125));
}

TEST_CASE("backward: grads accumulate across calls until cleargrad", "[autograd]") {
    const Variable x = scalar(2.0);
    (x * 3.0).backward();
    (x * 4.0).backward();
    CHECK(x.grad().item<double>() == 7.0);
    x.cleargrad();
    CHECK_FALSE(x.grad().defined());
    (x * 4.0).backward();
    CHECK(x.grad().item<double>() == 4.0);
}

TEST_CASE("backward: a chain of 1,000,000 functions neither recurses nor leaks", "[autograd]") {
    const int64_t functions_before = FunctionNode::live_count();
    {
        const Variable x = scalar(1.0);
        Variable y = x;
        for (int i = 0; i < 1'000'000; ++i) y = y + 1.0;
        CHECK(FunctionNode::live_count() - functions_before == 1'000'000);
        CHECK(y.rank() == 1'000'000);
        CHECK(y.item() == 1'000'001.0);
        y.backward();
        CHECK(x.grad().item<double>() == 1.0);
    }  // dropping y releases the chain iteratively (Note [Iterative graph release])
    CHECK(FunctionNode::live_count() == functions_before);
}

TEST_CASE("backward: unchain_backward cuts a long chain without recursion", "[autograd]") {
    const int64_t functions_before = FunctionNode::live_count();
    const Variable x = scalar(1.0);
    Variable y = x;
    for (int i = 0; i < 300'000; ++i) y = y * 1.0;  // far deeper than a recursive walk could go
    y.unchain_backward();
    CHECK(y.creator() == nullptr);
    CHECK(FunctionNode::live_count() == functions_before);
}

TEST_CASE("backward: branches that do not require grad get no grad and build no graph", "[autograd]") {
    const int64_t functions_before = FunctionNode::live_count();
    const Variable x = scalar(2.0);
    const Variable c = scalar(5.0, false);
    const Variable k = c * c;  // no input requires grad: no graph
    CHECK(k.creator() == nullptr);
    CHECK_FALSE(k.requires_grad());
    CHECK(FunctionNode::live_count() == functions_before);
    const Variable y = x * k;
    y.backward();
    CHECK(x.grad().item<double>() == 25.0);
    CHECK_FALSE(c.grad().defined());
    CHECK_FALSE(k.grad().defined());
}

TEST_CASE("backward: NoBackpropMode builds no graph, ForceBackpropMode does inside it", "[autograd]") {
    const int64_t functions_before = FunctionNode::live_count();
    const Variable x = scalar(2.0);
    NoBackpropMode no_graph;
    const Variable y = x * x + 1.0;
    CHECK(y.creator() == nullptr);
    CHECK(y.requires_grad());  // Chainer: the flag follows the inputs, only the graph is missing
    CHECK(FunctionNode::live_count() == functions_before);
    {
        ForceBackpropMode force;
        const Variable z = x * x;
        REQUIRE(z.creator() != nullptr);
        z.backward();
        CHECK(x.grad().item<double>() == 4.0);
    }
    CHECK(is_backprop_enabled() == false);
}

TEST_CASE("backward: dropping the outputs frees the graph", "[autograd]") {
    const int64_t functions_before = FunctionNode::live_count();
    const int64_t nodes_before = VariableNode::live_count();
    const Variable x = scalar(1.5);
    {
        const Variable h = test::tanh(x * 2.0);
        const Variable y = sum(h * h + x);
        CHECK(FunctionNode::live_count() - functions_before == 5);
        y.backward();
        CHECK(FunctionNode::live_count() - functions_before == 5);  // backward keeps a graph the user holds
    }
    CHECK(FunctionNode::live_count() == functions_before);
    // x only: its grad comes out of an unrecorded function and so has no node until one is
    // asked for (Note [Lazy variable nodes] in autograd/variable.cc).
    CHECK(VariableNode::live_count() - nodes_before == 1);
    REQUIRE(x.grad_var().defined());
    CHECK(x.grad_var().node() != nullptr);
    CHECK(VariableNode::live_count() - nodes_before == 2);  // x and its grad
}

TEST_CASE("backward: intermediate grads are freed unless retain_grad", "[autograd]") {
    const Variable x = scalar(3.0);
    const Variable h = x * x;
    const Variable y = h * 2.0;
    y.backward();
    CHECK_FALSE(h.grad().defined());
    CHECK(x.grad().item<double>() == 12.0);
    x.cleargrad();
    y.backward({.retain_grad = true});
    CHECK(h.grad().item<double>() == 2.0);
    CHECK(x.grad().item<double>() == 12.0);
}

TEST_CASE("backward: loss_scale scales the seed and is recorded on the leaves", "[autograd]") {
    const Variable x = scalar(3.0);
    (x * 2.0).backward({.loss_scale = 8.0});
    CHECK(x.grad().item<double>() == 16.0);
    CHECK(x.loss_scale() == 8.0);
}

TEST_CASE("backward: explicit output grads for non-scalar outputs", "[autograd]") {
    const Variable x = var({1, 2, 3}, {3});
    const Variable y = x * x;
    y.set_grad(Array::from_vector<double>({1, 10, 100}, {3}));
    y.backward();
    check_allclose(x.grad(), {2, 40, 600}, {3}, {0, 0});

    const Variable x2 = var({1, 2}, {2});
    const Variable a = x2 * 2.0, b = x2 * x2;
    backward({a, b}, {Variable(Array::from_vector<double>({1, 1}, {2}), false),
                      Variable(Array::from_vector<double>({1, 2}, {2}), false)});
    check_allclose(x2.grad(), {2 + 2, 2 + 8}, {2}, {0, 0});
}

TEST_CASE("backward: bad seeds throw clear errors and leave the graph usable", "[autograd]") {
    const Variable x = var({1, 2, 3, 4, 5, 6}, {2, 3});
    const Variable y = x * 2.0;
    CHECK_THROWS_WITH(y.backward(), Catch::Contains("shape (2, 3)") && Catch::Contains("no grad"));
    CHECK_THROWS_AS(y.backward(), ValueError);
    const Variable wrong_shape(ops::ones({3}, Dtype::kFloat64), false);
    CHECK_THROWS_AS(backward({y}, {wrong_shape}), DimensionError);
    const Variable wrong_dtype(ops::ones({2, 3}, Dtype::kFloat32), false);
    CHECK_THROWS_AS(backward({y}, {wrong_dtype}), DtypeError);
    CHECK_THROWS_AS(y.set_grad(ops::ones({3}, Dtype::kFloat64)), DimensionError);
    CHECK_FALSE(x.grad().defined());
    CHECK_FALSE(y.grad().defined());
    backward({y}, {Variable(ops::ones({2, 3}, Dtype::kFloat64), false)});  // still works
    check_allclose(x.grad(), std::vector<double>(6, 2.0), {2, 3}, {0, 0});
}

namespace {
// Returns a configurable (wrong) set of grads, to test the engine's checks.
class BadBackward : public FunctionNode {
public:
    BadBackward(int count, Shape shape, Dtype dtype) : count_{count}, shape_{shape}, dtype_{dtype} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::multiply(xs[0], xs[1])}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        std::vector<Variable> gxs;
        for (int i = 0; i < count_; ++i) gxs.emplace_back(ops::ones(shape_, dtype_), false);
        return gxs;
    }

private:
    int count_;
    Shape shape_;
    Dtype dtype_;
};

Variable apply_bad(const Variable& a, const Variable& b, int count, Shape shape, Dtype dtype) {
    return std::make_shared<BadBackward>(count, shape, dtype)->apply({a, b})[0];
}
}  // namespace

TEST_CASE("backward: a function returning wrong grads is named in the error", "[autograd]") {
    const Variable a = var({1, 2, 3}, {3});
    const Variable b = var({4, 5, 6}, {3});
    CHECK_THROWS_WITH(sum(apply_bad(a, b, 3, {3}, Dtype::kFloat64)).backward(),
                      Catch::Contains("BadBackward") && Catch::Contains("3 gradients for 2"));
    const Variable y = sum(apply_bad(a, b, 2, {4}, Dtype::kFloat64));
    CHECK_THROWS_AS(y.backward(), DimensionError);
    CHECK_THROWS_WITH(y.backward(),
                      Catch::Contains("BadBackward") && Catch::Contains("(4,)") && Catch::Contains("(3,)"));
    CHECK_THROWS_AS(sum(apply_bad(a, b, 2, {3}, Dtype::kFloat32)).backward(), DtypeError);
    CHECK_FALSE(a.grad().defined());  // nothing was set
    sum(apply_bad(a, b, 2, {3}, Dtype::kFloat64)).backward();
    check_allclose(a.grad(), {1, 1, 1}, {3}, {0, 0});
}

TEST_CASE("backward: only inputs that require grad are asked for", "[autograd]") {
    struct Recorder : FunctionNode {
        std::vector<int>* seen;
        explicit Recorder(std::vector<int>* s) : seen{s} {}
        std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::add(xs[0], xs[1])}; }
        std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
            *seen = targets;
            return std::vector<Variable>(targets.size(), gys[0]);
        }
    };
    std::vector<int> targets;
    const Variable a = scalar(1.0, false), b = scalar(2.0);
    std::make_shared<Recorder>(&targets)->apply({a, b})[0].backward();
    CHECK(targets == std::vector<int>{1});
    CHECK(b.grad().item<double>() == 1.0);
}

TEST_CASE("backward: double backprop of x^3 against closed forms", "[autograd]") {
    const Variable x = scalar(2.0);
    const Variable y = pow(x, 3);
    y.backward({.enable_double_backprop = true});
    const Variable gx = x.grad_var();
    CHECK(gx.item() == 12.0);  // 3x^2
    REQUIRE(gx.creator() != nullptr);
    x.cleargrad();
    gx.backward();
    CHECK(x.grad().item<double>() == 12.0);  // 6x
    const Variable ggx = grad({gx}, {x}, {}, {.enable_double_backprop = true})[0];
    CHECK(ggx.item() == 12.0);
    const Variable gggx = grad({ggx}, {x})[0];
    CHECK(gggx.item() == 6.0);  // d^3/dx^3 x^3 = 6
}

TEST_CASE("backward: without double backprop the grads carry no graph", "[autograd]") {
    const Variable x = scalar(2.0);
    pow(x, 3).backward();
    CHECK(x.grad_var().creator() == nullptr);
}

TEST_CASE("backward: double backprop through sin/tanh chains against closed forms", "[autograd]") {
    for (double v : {-1.3, 0.2, 0.9}) {
        CAPTURE(v);
        const Variable x = scalar(v);
        const Variable y = test::sin(test::tanh(x));  // y = sin(t), t = tanh x
        const Variable g = grad({y}, {x}, {}, {.enable_double_backprop = true})[0];
        const double t = std::tanh(v), dt = 1 - t * t, ddt = -2 * t * dt;
        CHECK(g.item() == Approx(std::cos(t) * dt));
        const Variable gg = grad({g}, {x})[0];
        CHECK(gg.item() == Approx(-std::sin(t) * dt * dt + std::cos(t) * ddt));
    }
    const Variable x = var({0.3, -0.7}, {2});
    const Variable y = sum(test::sin(x) * test::cos(x));  // sin(2x) / 2: y' = cos 2x, y'' = -2 sin 2x
    y.backward({.enable_double_backprop = true});
    const Variable gx = x.grad_var();
    check_allclose(gx.array(), {std::cos(0.6), std::cos(-1.4)}, {2}, {1e-12, 1e-12});
    x.cleargrad();
    sum(gx).backward();
    check_allclose(x.grad(), {-2 * std::sin(0.6), -2 * std::sin(-1.4)}, {2}, {1e-12, 1e-12});
}

TEST_CASE("backward: retained outputs survive their dropped Variable", "[autograd]") {
    const Variable x = scalar(0.4);
    Variable y = sum(test::tanh(x) * 1.0);  // the tanh output Variable is dropped at once
    y.backward();
    const double t = std::tanh(0.4);
    CHECK(x.grad().item<double>() == Approx(1 - t * t));
}

TEST_CASE("backward: unchain makes a leaf, the graph behind is freed", "[autograd]") {
    const int64_t functions_before = FunctionNode::live_count();
    const Variable x = scalar(2.0);
    const Variable h = x * x;
    const Variable y = h * 3.0;
    h.unchain();
    CHECK(h.creator() == nullptr);
    CHECK(h.rank() == 0);
    CHECK(FunctionNode::live_count() - functions_before == 1);  // only y's
    y.backward();
    CHECK_FALSE(x.grad().defined());
    CHECK(h.grad().item<double>() == 3.0);  // h is a leaf now
}

TEST_CASE("backward: a leaf output does nothing", "[autograd]") {
    const Variable x = var({1, 2}, {2});
    x.backward();
    CHECK_FALSE(x.grad().defined());
}
