// Leaf-gradient hooks (autograd/leaf_grad_hook.h): each leaf is reported once, as soon as
// its grad is final, with that grad already stored; reuse, previous grads, unreached
// consumers, completion order, no calls without a scope, nested scopes.

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/leaf_grad_hook.h"
#include "core/ops/elementwise.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::test::scalar;
using rensa::test::tanh;
using rensa::test::var;
using rensa::testing::check_allclose;

namespace {

// One report: the leaf's name and its grad at the time of the call (copied).
struct Report {
    std::string name;
    std::vector<double> grad;
};

// Records every report of the hook scope it opens.
class Recorder {
public:
    Recorder()
        : scope_{[this](const Variable& leaf) {
              reports.push_back(
                  {leaf.name(), leaf.grad().defined() ? leaf.grad().to_vector<double>() : std::vector<double>{}});
          }} {}
    std::vector<Report> reports;

    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const Report& r : reports) out.push_back(r.name);
        return out;
    }
    int count(const std::string& name) const {
        int n = 0;
        for (const Report& r : reports) n += r.name == name ? 1 : 0;
        return n;
    }
    size_t position(const std::string& name) const {
        for (size_t i = 0; i < reports.size(); ++i) {
            if (reports[i].name == name) return i;
        }
        return reports.size();
    }
    const Report& report(const std::string& name) const { return reports.at(position(name)); }

private:
    LeafGradHookScope scope_;
};

Variable named(const std::vector<double>& values, const Shape& shape, const std::string& name) {
    Variable v = var(values, shape);
    v.set_name(name);
    return v;
}

// u + v forward; backward gives no grad to u (so u's creator is never reached).
class DropFirstGrad : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::add(xs[0], xs[1])}; }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        std::vector<Variable> grads;
        for (int i : targets) grads.push_back(i == 0 ? Variable{} : gys[0]);
        return grads;
    }
};

}  // namespace

TEST_CASE("leaf_grad_hook: each leaf is reported once with its final grad", "[autograd][leaf_grad_hook]") {
    const Variable a = named({1.0, 2.0}, {2}, "a");
    const Variable b = named({3.0, 4.0}, {2}, "b");
    const Variable c = named({5.0, 6.0}, {2}, "c");
    const Variable constant = var({1.0, 1.0}, {2}, /*requires_grad=*/false);
    Recorder recorder;
    sum(a * b + c * c + constant).backward();  // c feeds one function through two slots
    REQUIRE(recorder.reports.size() == 3);
    for (const Variable& v : {a, b, c}) {
        CHECK(recorder.count(v.name()) == 1);
        CHECK(recorder.report(v.name()).grad == v.grad().to_vector<double>());
    }
    check_allclose(a.grad(), {3.0, 4.0}, {2}, {1e-12, 1e-12});
    check_allclose(c.grad(), {10.0, 12.0}, {2}, {1e-12, 1e-12});
}

TEST_CASE("leaf_grad_hook: a reused parameter is reported after its last use with the summed grad",
          "[autograd][leaf_grad_hook]") {
    // RNN-like: h_{k} = tanh(W * h_{k-1} + x_k), W used three times.
    auto run = [](bool hooked) {
        const Variable w = named({0.5, -0.3}, {2}, "W");
        std::vector<Variable> xs;
        for (const char* name : {"x1", "x2", "x3"}) {
            const double k = name[1] - '0';
            xs.push_back(named({0.1 * k, -0.2 * k}, {2}, name));
        }
        std::unique_ptr<Recorder> recorder = hooked ? std::make_unique<Recorder>() : nullptr;
        Variable h = var({1.0, 2.0}, {2}, /*requires_grad=*/false);
        for (const Variable& x : xs) h = tanh(w * h + x);
        sum(h).backward();
        return std::make_pair(w.grad().to_vector<double>(), recorder ? recorder->reports : std::vector<Report>{});
    };
    const auto [plain_grad, no_reports] = run(false);
    const auto [hooked_grad, reports] = run(true);
    CHECK(no_reports.empty());
    REQUIRE(reports.size() == 4);
    // x3 is complete first; W only once its first use (next to x1) was processed.
    CHECK(reports[0].name == "x3");
    CHECK(reports[1].name == "x2");
    int w_count = 0;
    size_t w_pos = 0, x1_pos = 0;
    for (size_t i = 0; i < reports.size(); ++i) {
        if (reports[i].name == "W") w_count += 1, w_pos = i;
        if (reports[i].name == "x1") x1_pos = i;
    }
    CHECK(w_count == 1);
    CHECK(w_pos > 1);
    CHECK(x1_pos > 1);
    CHECK(reports[w_pos].grad == plain_grad);  // the sum over the three uses
    CHECK(hooked_grad == plain_grad);
}

TEST_CASE("leaf_grad_hook: the reported grad includes the previous grad", "[autograd][leaf_grad_hook]") {
    const Variable x = named({2.0}, {}, "x");
    x.set_grad(Array::from_vector(std::vector<double>{5.0}, {}));
    Recorder recorder;
    (x * 3.0).backward();
    REQUIRE(recorder.reports.size() == 1);
    CHECK(recorder.reports[0].grad == std::vector<double>{8.0});
    CHECK(x.grad().item<double>() == 8.0);
}

TEST_CASE("leaf_grad_hook: a leaf with an unreached consumer is reported at the end", "[autograd][leaf_grad_hook]") {
    const Variable w = named({2.0}, {}, "w");
    const Variable x = named({3.0}, {}, "x");
    const Variable early = named({4.0}, {}, "early");
    const Variable u = w * 2.0;  // gets no grad: its creator is never processed
    const Variable v = std::make_shared<DropFirstGrad>()->apply({u, w * x})[0];
    Recorder recorder;
    (v * early).backward();
    CHECK(recorder.names() == std::vector<std::string>{"early", "x", "w"});
    CHECK(recorder.report("w").grad == std::vector<double>{3.0 * 4.0});
    CHECK(w.grad().item<double>() == 12.0);
}

TEST_CASE("leaf_grad_hook: a parameter of the last layer completes before one of the first layer",
          "[autograd][leaf_grad_hook]") {
    const Variable x = var({1.0, 2.0}, {2}, /*requires_grad=*/false);
    const Variable w1 = named({0.1, 0.2}, {2}, "l1/W");
    const Variable b1 = named({0.0, 0.1}, {2}, "l1/b");
    const Variable w2 = named({0.3, 0.4}, {2}, "l2/W");
    const Variable b2 = named({0.5, 0.6}, {2}, "l2/b");
    Recorder recorder;
    const Variable h = tanh(x * w1 + b1);
    sum(h * w2 + b2).backward();
    REQUIRE(recorder.reports.size() == 4);
    CHECK(recorder.position("l2/W") < recorder.position("l1/W"));
    CHECK(recorder.position("l2/b") < recorder.position("l1/W"));
    CHECK(recorder.position("l2/W") < recorder.position("l1/b"));
}

TEST_CASE("leaf_grad_hook: no calls without a scope, nor from grad()", "[autograd][leaf_grad_hook]") {
    const Variable x = named({2.0}, {}, "x");
    int calls = 0;
    {
        LeafGradHookScope scope{[&calls](const Variable&) { ++calls; }};
        (x * x).backward();
        CHECK(calls == 1);
        const std::vector<Variable> gx = grad({x * x * x}, {x});
        CHECK(gx[0].item<double>() == 12.0);
        CHECK(calls == 1);
    }
    CHECK(leaf_grad_hooks().empty());
    x.cleargrad();
    (x * 5.0).backward();
    CHECK(calls == 1);
    CHECK(x.grad().item<double>() == 5.0);
}

TEST_CASE("leaf_grad_hook: nested scopes run every hook, outer first", "[autograd][leaf_grad_hook]") {
    const Variable x = named({2.0}, {}, "x");
    std::vector<std::string> calls;
    {
        LeafGradHookScope outer{[&calls](const Variable& v) { calls.push_back("outer:" + v.name()); }};
        {
            LeafGradHookScope inner{[&calls](const Variable& v) { calls.push_back("inner:" + v.name()); }};
            CHECK(leaf_grad_hooks().size() == 2);
            (x * 2.0).backward();
        }
        CHECK(calls == std::vector<std::string>{"outer:x", "inner:x"});
        (x * 2.0).backward();
        CHECK(calls == std::vector<std::string>{"outer:x", "inner:x", "outer:x"});
    }
    CHECK_THROWS_AS(LeafGradHookScope(LeafGradHook{}), ValueError);
}
