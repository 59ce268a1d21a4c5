// The cheap paths of autograd (issue 24): outputs of unrecorded functions without a node
// until one is asked for, retained index sets, and the engine's gradient slots (nested
// runs, runs that throw, functions of several outputs) and the per-thread live counts.

#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::test::scalar;
using rensa::test::var;

namespace {

// Sums its inputs, retaining the ones given; backward scales each grad by its retained input.
class WeightedSum : public FunctionNode {
public:
    explicit WeightedSum(Indexes retained) : retained_{std::move(retained)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs(retained_);
        Array y = xs[0];
        for (size_t i = 1; i < xs.size(); ++i) y = ops::add(y, xs[i]);
        return {y};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        for (int i : targets) gxs.push_back(gys[0] * retained_input(i));
        return gxs;
    }

private:
    Indexes retained_;
};

// y0 = 2x, y1 = 3x, retaining y1; counts its backward calls.
class TwoOutputs : public FunctionNode {
public:
    explicit TwoOutputs(int* calls) : calls_{calls} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({1});
        return {ops::multiply(xs[0], 2.0), ops::multiply(xs[0], 3.0)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        ++*calls_;
        CHECK_THROWS_AS(retained_output(0), ValueError);
        CHECK(retained_output(1).item() == Approx(4.5));  // 3x at x = 1.5
        return {gys[0] * 2.0 + gys[1] * 3.0};
    }

private:
    int* calls_;
};

// The identity, whose backward first runs a whole backward() from `inner` (or throws).
class NestedBackward : public FunctionNode {
public:
    NestedBackward(Variable inner, bool fail) : inner_{std::move(inner)}, fail_{fail} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0]}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        if (fail_) throw std::runtime_error("NestedBackward: failing on purpose");
        rensa::backward({inner_}, {Variable(ops::ones_like(inner_.array()), false)});
        return {gys[0]};
    }

private:
    Variable inner_;
    bool fail_;
};

}  // namespace

TEST_CASE("fast paths: an unrecorded output has no node until one is asked for", "[autograd]") {
    const Variable a = var({1.0, 2.0}, {2}, false);
    const int64_t nodes_before = VariableNode::live_count();
    const Variable y = a * a;
    CHECK(VariableNode::live_count() == nodes_before);
    CHECK_FALSE(y.requires_grad());
    CHECK(y.name().empty());
    CHECK(y.creator() == nullptr);
    CHECK(y.rank() == 0);
    y.set_array(ops::ones({3}));  // no node to update yet
    const std::shared_ptr<VariableNode>& node = y.node();
    REQUIRE(node != nullptr);
    CHECK(VariableNode::live_count() == nodes_before + 1);
    CHECK(node->shape() == Shape{3});
    CHECK(node->dtype() == Dtype::kFloat32);
    CHECK_FALSE(node->requires_grad());
    CHECK(node->get_variable_or_none() == y);
    CHECK(y.node() == node);  // made once

    const Variable z = a + a;
    z.set_name("z");  // makes the node
    CHECK(VariableNode::live_count() == nodes_before + 2);
    CHECK(z.node()->name() == "z");
}

TEST_CASE("fast paths: an output made without backprop keeps requires_grad and joins a graph later", "[autograd]") {
    const Variable x = scalar(3.0);
    Variable h;
    {
        NoBackpropMode no_graph;
        h = x * 2.0;
    }
    CHECK(h.requires_grad());
    CHECK(h.creator() == nullptr);
    const Variable y = h * h;  // h becomes a leaf of this graph
    REQUIRE(y.creator() != nullptr);
    CHECK(y.rank() == 1);
    y.backward();
    CHECK(h.grad().item<double>() == Approx(12.0));
    CHECK_FALSE(x.grad().defined());
}

TEST_CASE("fast paths: retained indexes past 64 inputs, from a vector or a list, and bad ones", "[autograd]") {
    std::vector<Variable> xs;
    FunctionNode::Indexes all;
    for (int i = 0; i < 70; ++i) {
        xs.push_back(scalar(i + 1.0));
        all.push_back(69 - i);
    }
    const Variable y = std::make_shared<WeightedSum>(all)->apply(xs)[0];
    CHECK(y.item() == Approx(70.0 * 71.0 / 2.0));
    y.backward();
    for (int i : {0, 1, 62, 63, 64, 65, 69}) CHECK(xs[static_cast<size_t>(i)].grad().item<double>() == Approx(i + 1.0));
    for (const Variable& x : xs) x.cleargrad();
    // Inputs 1..62 and 65..68 are not retained: backward reports the first it needs.
    const Variable w = std::make_shared<WeightedSum>(FunctionNode::Indexes{69, 0, 64, 63})->apply(xs)[0];
    CHECK_THROWS_AS(w.backward(), ValueError);

    std::vector<Variable> few(xs.begin(), xs.begin() + 2);
    const Variable z = std::make_shared<WeightedSum>(FunctionNode::Indexes{1, 0})->apply(few)[0];
    z.backward();
    CHECK(xs[0].grad().item<double>() == Approx(1.0));
    CHECK(xs[1].grad().item<double>() == Approx(2.0));

    CHECK_THROWS_AS(std::make_shared<WeightedSum>(FunctionNode::Indexes{-1})->apply(few), IndexError);
    CHECK_THROWS_AS(std::make_shared<WeightedSum>(FunctionNode::Indexes{2})->apply(few), IndexError);
    CHECK_THROWS_AS(std::make_shared<WeightedSum>(FunctionNode::Indexes{64})->apply(few), IndexError);
}

TEST_CASE("fast paths: a function of two outputs reached through both runs backward once", "[autograd]") {
    const Variable x = scalar(1.5);
    int calls = 0;
    const std::vector<Variable> ys = std::make_shared<TwoOutputs>(&calls)->apply({x});
    const Variable loss = ys[0] * 1.0 + ys[1] * 1.0;
    loss.backward();
    CHECK(calls == 1);
    CHECK(x.grad().item<double>() == Approx(5.0));
}

TEST_CASE("fast paths: a backward inside a function's backward shares nodes with the outer one", "[autograd]") {
    // h = 3x; y2 = 5h; loss = Nested(h) + y2, where Nested's backward first runs backward
    // from y2 while the outer run holds y2's grad: x gets 5 * 3 from the inner run, then
    // (1 + 5) * 3 added by the outer one.
    const Variable x = scalar(2.0);
    const Variable h = x * 3.0;
    const Variable y2 = h * 5.0;
    const Variable y1 = std::make_shared<NestedBackward>(y2, false)->apply({h})[0];
    const Variable loss = y1 + y2;
    loss.backward();
    CHECK(x.grad().item<double>() == Approx(33.0));

    // The same graph again: the slots of both runs were given back.
    x.cleargrad();
    (y1 + y2).backward();
    CHECK(x.grad().item<double>() == Approx(33.0));
}

TEST_CASE("fast paths: a backward that throws leaves no gradient behind in the graph", "[autograd]") {
    const Variable x = scalar(2.0);
    const Variable h = x * 3.0;
    const Variable y = h * 5.0;
    const Variable bad = std::make_shared<NestedBackward>(Variable(), true)->apply({h})[0];
    CHECK_THROWS_AS((bad + y).backward(), std::runtime_error);
    CHECK_FALSE(x.grad().defined());
    y.backward();  // h and y held grads of the failed run: none may leak into this one
    CHECK(x.grad().item<double>() == Approx(15.0));
}

TEST_CASE("fast paths: live node counts add up across threads", "[autograd]") {
    const int64_t functions_before = FunctionNode::live_count();
    const int64_t nodes_before = VariableNode::live_count();
    Variable y;
    std::thread([&y] {
        const Variable x = scalar(2.0);
        y = x * 3.0;
    }).join();  // made on a thread that has ended
    CHECK(FunctionNode::live_count() - functions_before == 1);
    CHECK(VariableNode::live_count() - nodes_before == 2);  // x's and y's
    y = Variable();                                         // freed on this thread
    CHECK(FunctionNode::live_count() == functions_before);
    CHECK(VariableNode::live_count() == nodes_before);
}
