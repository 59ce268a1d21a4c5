// Optimizer hooks against hand-computed values on a link with two parameters,
// a = [1, -2] and b = [0.5, 0, 3], grads ga = [0.5, 1] and gb = [-2, 0.25, 4], updated by a
// test-local plain rule (param -= lr * grad) with lr = 1, so param_new = param - grad'.

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/random.h"
#include "links/link.h"
#include "optimizers/hooks.h"
#include "tests/testing/testing.h"

namespace {

using namespace rensa;
using optimizers::GradientMethod;
using optimizers::HookTiming;
using optimizers::UpdateRule;
namespace H = rensa::optimizer_hooks;
using rensa::testing::to_doubles;

class PlainRule : public UpdateRule {
public:
    using UpdateRule::UpdateRule;

protected:
    void init_state(const Array&) override {}
    void update_core(const Array& param, const Array& grad) override {
        ops::add_inplace(param, ops::multiply(grad, Scalar(-hyperparam().get("lr"))));
    }
};

class PlainSGD : public GradientMethod {
public:
    explicit PlainSGD(double lr = 1.0) { hyperparam().set("lr", lr); }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override { return std::make_shared<PlainRule>(hyperparam_ptr()); }
};

class TwoParams : public links::Link {
public:
    links::Parameter a, b;
    TwoParams() {
        register_param("a", &TwoParams::a, links::Parameter(Array::from_vector<float>({1.0f, -2.0f}, {2})));
        register_param("b", &TwoParams::b, links::Parameter(Array::from_vector<float>({0.5f, 0.0f, 3.0f}, {3})));
    }
};

const std::vector<double> kA{1.0, -2.0}, kB{0.5, 0.0, 3.0}, kGa{0.5, 1.0}, kGb{-2.0, 0.25, 4.0};

struct Setup {
    std::shared_ptr<TwoParams> link = std::make_shared<TwoParams>();
    PlainSGD optimizer;
    Setup() {
        optimizer.setup(link);
        link->a.set_grad(Array::from_vector<double>(kGa, {2}).astype(Dtype::kFloat32));
        link->b.set_grad(Array::from_vector<double>(kGb, {3}).astype(Dtype::kFloat32));
    }
};

// grad' of each element from f(param, grad); checks param_new = param - grad'.
template <class F>
void check_update(const Setup& s, F&& f) {
    std::vector<double> a, b;
    for (size_t i = 0; i < kA.size(); ++i) a.push_back(kA[i] - f(kA[i], kGa[i]));
    for (size_t i = 0; i < kB.size(); ++i) b.push_back(kB[i] - f(kB[i], kGb[i]));
    rensa::testing::check_allclose(s.link->a.array(), a, {2}, {1e-6, 1e-6});
    rensa::testing::check_allclose(s.link->b.array(), b, {3}, {1e-6, 1e-6});
}

double sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }

TEST_CASE("optimizer hooks: names, defaults and timings", "[optimizers]") {
    const H::WeightDecay decay(0.1);
    CHECK(decay.name() == "WeightDecay");
    CHECK(decay.timing() == HookTiming::kPre);
    CHECK(decay.call_for_each_param());
    CHECK(H::Lasso(0.1).name() == "Lasso");
    const H::GradientClipping clipping(1.0);
    CHECK(clipping.name() == "GradientClipping");
    CHECK_FALSE(clipping.call_for_each_param());
    CHECK(H::GradientHardClipping(-1, 1).name() == "GradientHardClipping");
    CHECK(H::GradientNoise(0.3).name() == "GradientNoise");
    const H::GradientLARS lars;
    CHECK(lars.name() == "GradientLARS");
    CHECK(lars.threshold == 1e-2);
    CHECK(lars.weight_decay == 0.0);
    CHECK(lars.eps == 1e-9);
}

TEST_CASE("optimizer hooks: WeightDecay adds rate times the parameter", "[optimizers]") {
    Setup s;
    s.optimizer.add_hook(std::make_shared<H::WeightDecay>(0.1));
    s.optimizer.update();
    check_update(s, [](double p, double g) { return g + 0.1 * p; });
}

TEST_CASE("optimizer hooks: WeightDecay is unchanged by loss scaling", "[optimizers]") {
    Setup s;
    s.optimizer.add_hook(std::make_shared<H::WeightDecay>(0.1));
    s.optimizer.loss_scaling(1000, 1024.0);
    const Variable xa(Array::from_vector<double>(kGa, {2}).astype(Dtype::kFloat32), false);
    const Variable xb(Array::from_vector<double>(kGb, {3}).astype(Dtype::kFloat32), false);
    s.optimizer.update([&] { return sum(s.link->a * xa) + sum(s.link->b * xb); });  // grads ga, gb (x 1024)
    check_update(s, [](double p, double g) { return g + 0.1 * p; });
}

TEST_CASE("optimizer hooks: Lasso adds rate times the sign of the parameter", "[optimizers]") {
    Setup s;
    s.optimizer.add_hook(std::make_shared<H::Lasso>(0.1));
    s.optimizer.update();
    check_update(s, [](double p, double g) { return g + 0.1 * sign(p); });
}

TEST_CASE("optimizer hooks: GradientClipping rescales by the global L2 norm", "[optimizers]") {
    double sqnorm = 0.0;
    for (double g : kGa) sqnorm += g * g;
    for (double g : kGb) sqnorm += g * g;
    const double norm = std::sqrt(sqnorm);  // sqrt(21.3125) = 4.6166...
    SECTION("above the threshold") {
        Setup s;
        s.optimizer.add_hook(std::make_shared<H::GradientClipping>(2.0));
        s.optimizer.update();
        check_update(s, [&](double, double g) { return g * 2.0 / norm; });
    }
    SECTION("within the threshold") {
        Setup s;
        s.optimizer.add_hook(std::make_shared<H::GradientClipping>(5.0));
        s.optimizer.update();
        check_update(s, [](double, double g) { return g; });
    }
}

TEST_CASE("optimizer hooks: GradientHardClipping clips each element", "[optimizers]") {
    Setup s;
    s.optimizer.add_hook(std::make_shared<H::GradientHardClipping>(-1.0, 0.5));
    s.optimizer.update();
    check_update(s, [](double, double g) { return std::min(std::max(g, -1.0), 0.5); });
}

TEST_CASE("optimizer hooks: GradientNoise adds noise_func of the rule", "[optimizers]") {
    Setup s;
    // A deterministic noise that shows which rule step the hook saw.
    auto noise = [](Device device, const Shape& shape, Dtype dtype, const H::GradientNoise& hook,
                    const UpdateRule& rule) {
        return ops::full(shape, hook.eta * static_cast<double>(rule.t + 1), dtype, device);
    };
    s.optimizer.add_hook(std::make_shared<H::GradientNoise>(0.25, noise));
    s.optimizer.update();
    check_update(s, [](double, double g) { return g + 0.25; });
    s.optimizer.update();  // the grads kept the first noise; rule.t is 1 now
    const double a0 = to_doubles(s.link->a.array())[0];
    CHECK(a0 == Approx(kA[0] - (kGa[0] + 0.25) - (kGa[0] + 0.25 + 0.5)));
}

TEST_CASE("optimizer hooks: GradientNoise default has variance eta over (1 + t) to the 0.55", "[optimizers]") {
    rensa::seed(7);
    auto link = std::make_shared<links::Link>();
    const links::Parameter& w = link->add_param("w", Shape{20000});
    w.array().fill(0.0);
    PlainSGD optimizer(0.0);
    optimizer.setup(link);
    optimizer.add_hook(std::make_shared<H::GradientNoise>(0.3));
    for (int t = 0; t < 2; ++t) {
        w.set_grad(ops::zeros({20000}));
        optimizer.update();
        const std::vector<double> g = to_doubles(w.grad());
        double mean = 0.0, var = 0.0;
        for (double x : g) mean += x / static_cast<double>(g.size());
        for (double x : g) var += (x - mean) * (x - mean) / static_cast<double>(g.size());
        const double expected = 0.3 / std::pow(1.0 + t, 0.55);
        CHECK(std::abs(mean) < 0.02);
        CHECK(var == Approx(expected).epsilon(0.05));
    }
}

TEST_CASE("optimizer hooks: GradientLARS scales by the trust ratio above the threshold", "[optimizers]") {
    // |a| = sqrt(5) is below the threshold 2.5 (rate 1); |b| = sqrt(9.25) is above it.
    auto norm = [](const std::vector<double>& v) {
        double s = 0.0;
        for (double x : v) s += x * x;
        return std::sqrt(s);
    };
    const double wd = 0.1, eps = 1e-9;
    const double rate_b = norm(kB) / (eps + norm(kGb) + wd * norm(kB));
    Setup s;
    s.optimizer.add_hook(std::make_shared<H::GradientLARS>(2.5, wd, eps));
    s.optimizer.update();
    std::vector<double> a, b;
    for (size_t i = 0; i < 2; ++i) a.push_back(kA[i] - (kGa[i] + wd * kA[i]));
    for (size_t i = 0; i < 3; ++i) b.push_back(kB[i] - (kGb[i] + wd * kB[i]) * rate_b);
    rensa::testing::check_allclose(s.link->a.array(), a, {2}, {1e-6, 1e-6});
    rensa::testing::check_allclose(s.link->b.array(), b, {3}, {1e-6, 1e-6});
    CHECK(rate_b == Approx(0.635840).epsilon(1e-5));
}

TEST_CASE("optimizer hooks: a post hook sees the updated parameter", "[optimizers]") {
    Setup s;
    s.optimizer.add_hook(std::make_shared<H::WeightDecay>(0.1), "", HookTiming::kPost);
    s.optimizer.update();
    check_update(s, [](double, double g) { return g; });
    const std::vector<double> a_new = to_doubles(s.link->a.array());
    const std::vector<double> ga = to_doubles(s.link->a.grad());
    CHECK(ga[1] == Approx(kGa[1] + 0.1 * a_new[1]));
}

TEST_CASE("optimizer hooks: per-parameter hooks on one update rule", "[optimizers]") {
    Setup s;
    auto& rule = dynamic_cast<UpdateRule&>(*s.link->a.update_rule());
    rule.add_hook(std::make_shared<H::WeightDecay>(0.1));
    s.optimizer.loss_scaling(1000, 64.0);  // the rule's hook sees unscaled grads: no correction
    const Variable xa(Array::from_vector<double>(kGa, {2}).astype(Dtype::kFloat32), false);
    const Variable xb(Array::from_vector<double>(kGb, {3}).astype(Dtype::kFloat32), false);
    s.optimizer.update([&] { return sum(s.link->a * xa) + sum(s.link->b * xb); });
    std::vector<double> a, b;
    for (size_t i = 0; i < 2; ++i) a.push_back(kA[i] - (kGa[i] + 0.1 * kA[i]));
    for (size_t i = 0; i < 3; ++i) b.push_back(kB[i] - kGb[i]);
    rensa::testing::check_allclose(s.link->a.array(), a, {2}, {1e-6, 1e-6});
    rensa::testing::check_allclose(s.link->b.array(), b, {3}, {1e-6, 1e-6});
}

TEST_CASE("optimizer hooks: GradientClipping needs the whole optimizer", "[optimizers]") {
    Setup s;
    auto& rule = dynamic_cast<UpdateRule&>(*s.link->a.update_rule());
    rule.add_hook(std::make_shared<H::GradientClipping>(1.0));
    CHECK_THROWS_AS(s.optimizer.update(), NotImplementedError);
    // Called directly on the optimizer it clips every grad.
    Setup t;
    H::GradientClipping clip(1.0);
    clip(t.optimizer);
    double sqnorm = 0.0;
    for (double g : to_doubles(t.link->a.grad())) sqnorm += g * g;
    for (double g : to_doubles(t.link->b.grad())) sqnorm += g * g;
    CHECK(std::sqrt(sqnorm) == Approx(1.0));
}

}  // namespace
