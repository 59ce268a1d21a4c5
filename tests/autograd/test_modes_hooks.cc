// Modes and config scopes (thread-local, restored on exceptions), debug-mode NaN/Inf
// detection, function hooks (order, TimerHook, PrintHook) and the graph dump.

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "tests/autograd/test_functions.h"

using namespace rensa;
using rensa::test::scalar;
using rensa::test::var;

TEST_CASE("modes: scopes nest and are restored on exceptions", "[autograd]") {
    REQUIRE(is_backprop_enabled());
    try {
        NoBackpropMode no_graph;
        CHECK_FALSE(is_backprop_enabled());
        {
            ForceBackpropMode force;
            CHECK(is_backprop_enabled());
            ConfigScope eval{&Config::train, false};
            CHECK_FALSE(config().train);
            throw std::runtime_error("leave the scopes");
        }
    } catch (const std::runtime_error&) {
    }
    CHECK(is_backprop_enabled());
    CHECK(config().train);
    CHECK_FALSE(config().debug);
}

TEST_CASE("modes: the config is per thread", "[autograd]") {
    NoBackpropMode no_graph;
    ConfigScope debug{&Config::debug, true};
    bool other_backprop = false, other_debug = true;
    std::thread([&] {
        other_backprop = is_backprop_enabled();
        other_debug = is_debug();
    }).join();
    CHECK(other_backprop);
    CHECK_FALSE(other_debug);
}

TEST_CASE("debug: NaN in a forward output names the function", "[autograd]") {
    const Variable x = var({-1.0, 2.0}, {2});
    CHECK_NOTHROW(log(x));  // not in debug mode: NaN passes silently
    ConfigScope debug{&Config::debug, true};
    CHECK_THROWS_AS(log(x), ValueError);
    CHECK_THROWS_WITH(log(x), "NaN is detected on forward computation of Log");
    CHECK_THROWS_WITH(1.0 / Variable(ops::zeros({2}, Dtype::kFloat64)),
                      "Inf is detected on forward computation of DivFromConstant");
}

namespace {
// Identity whose backward returns NaN: the engine must catch it.
struct NanBackward : FunctionNode {
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0]}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {Variable(ops::full(gys[0].shape(), std::nan(""), gys[0].dtype()), false)};
    }
};
}  // namespace

TEST_CASE("debug: NaN in a backward grad names the function", "[autograd]") {
    const Variable x = var({1.0}, {1});
    const Variable y = sum(std::make_shared<NanBackward>()->apply({x})[0]);
    ConfigScope debug{&Config::debug, true};
    CHECK_THROWS_AS(y.backward(), ValueError);
    CHECK_THROWS_WITH(y.backward(), "NaN is detected on backward computation of NanBackward");
    CHECK_FALSE(x.grad().defined());
    // An op run by a backward reports its own name: 0.5 * 0^-0.5 is Inf.
    const Variable z = sum(pow(var({0.0}, {1}), 0.5));
    CHECK_THROWS_WITH(z.backward(), Catch::Contains("Inf is detected") && Catch::Contains("PowByConstant"));
}

namespace {
struct RecordingHook : FunctionHook {
    std::string id;
    std::vector<std::string>* log;
    RecordingHook(std::string i, std::vector<std::string>* l) : id{std::move(i)}, log{l} {}
    void forward_preprocess(const FunctionNode& f, const std::vector<Array>&) override {
        log->push_back(id + " pre " + f.label());
    }
    void forward_postprocess(const FunctionNode& f, const std::vector<Array>&) override {
        log->push_back(id + " post " + f.label());
    }
    void backward_preprocess(const FunctionNode& f, const std::vector<Array>&, const std::vector<Array>&) override {
        log->push_back(id + " bpre " + f.label());
    }
    void backward_postprocess(const FunctionNode& f, const std::vector<Array>&, const std::vector<Array>&) override {
        log->push_back(id + " bpost " + f.label());
    }
};
}  // namespace

TEST_CASE("hooks: called around forward and backward, in registration order", "[autograd]") {
    std::vector<std::string> log;
    RecordingHook a{"a", &log}, b{"b", &log};
    const Variable x = scalar(2.0);
    {
        FunctionHookScope scope_a{a};
        FunctionHookScope scope_b{b};
        const Variable y = (x * 3.0) + 1.0;
        y.backward();
    }
    const Variable z = x * 3.0;  // no hooks any more
    CHECK(log == std::vector<std::string>{
                     "a pre MulConstant",   "b pre MulConstant",   "a post MulConstant",  "b post MulConstant",
                     "a pre AddConstant",   "b pre AddConstant",   "a post AddConstant",  "b post AddConstant",
                     "a bpre AddConstant",  "b bpre AddConstant",  "a bpost AddConstant", "b bpost AddConstant",
                     "a bpre MulConstant",  "b bpre MulConstant",  "a pre MulConstant",   "b pre MulConstant",
                     "a post MulConstant",  "b post MulConstant",  // gy * 3
                     "a bpost MulConstant", "b bpost MulConstant",
                 });
}

TEST_CASE("hooks: TimerHook tables each function's time", "[autograd]") {
    TimerHook timer;
    {
        FunctionHookScope scope{timer};
        const Variable x = var({1, 2, 3}, {3});
        sum(x * x + x).backward();
    }
    const auto table = timer.summary();
    CHECK(table.at("Mul").occurrence >= 2);  // forward, backward and the Muls that backward applies
    CHECK(table.at("Add").occurrence >= 2);
    CHECK(table.at("Sum").occurrence == 2);
    CHECK(timer.call_history().size() >= 6);
    CHECK(timer.total_time() > 0);
    std::ostringstream report;
    timer.print_report(report);
    CHECK(report.str().find("FunctionName") != std::string::npos);
    CHECK(report.str().find("Sum") != std::string::npos);
}

TEST_CASE("hooks: PrintHook prints labels, shapes and dtypes", "[autograd]") {
    std::ostringstream out;
    PrintHook print{out};
    {
        FunctionHookScope scope{print};
        const Variable x(ops::ones({2, 3}, Dtype::kFloat32));
        sum(x * x).backward();
    }

    const std::string s = out.str();
    CHECK(s.find("function\tMul (forward)") != std::string::npos);
    CHECK(s.find("(2, 3), float32") != std::string::npos);
}

TEST_CASE("computational_graph: DOT of a small graph", "[autograd]") {
    const Variable x = scalar(1.0);
    x.set_name("x");
    const Variable y = test::tanh(x * x + 2.0);
    y.set_name("y");
    const ComputationalGraph g = build_computational_graph({y});
    CHECK(g.functions().size() == 3);
    CHECK(g.variables().size() == 4);  // x, x*x, +2 and y
    const std::string dot = g.dump();
    CHECK(dot.rfind("digraph graphname{rankdir=TB;", 0) == 0);
    CHECK(dot.find("label=\"x: (), float64\",shape=\"oval\"") != std::string::npos);
    CHECK(dot.find("label=\"TanhNode\",shape=\"record\"") != std::string::npos);
    CHECK(dot.find("label=\"y: (), float64\"") != std::string::npos);
    const ComputationalGraph functions_only = build_computational_graph({y}, {.remove_variable = true});
    CHECK(functions_only.edges().size() == 2);  // Mul -> AddConstant -> TanhNode
    CHECK(functions_only.dump().find("oval") == std::string::npos);
}
