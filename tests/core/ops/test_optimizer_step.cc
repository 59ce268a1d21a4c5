// The fused optimizer_step kernel against the same formulas written as a chain of core
// ops in float64, for every rule and variant, float16/bfloat16/float32/float64, every
// layout, a size that runs on several threads, and the argument errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/operators.h"
#include "core/ops/optimizer_step.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::Layout;

namespace {

using States = std::vector<Array>;

// Chainer's CPU formulas on float64 arrays: returns the new param and states.
void reference_momentum(const OptimizerStepArgs& a, Array& p, const Array& g, States& s) {
    switch (a.rule) {
        case OptimizerRule::kMomentumSgd:
            s[0] = a.momentum * s[0] - a.lr * g;
            p = p + s[0];
            return;
        case OptimizerRule::kNesterovAg:
            s[0] = a.momentum * s[0] - a.lr * g;
            p = p + a.momentum * a.momentum * s[0] - (1 + a.momentum) * a.lr * g;
            return;
        default:  // kCorrectedMomentumSgd
            s[0] = a.momentum * s[0] - g;
            p = p + a.lr * s[0];
    }
}

void reference_adaptive(const OptimizerStepArgs& a, Array& p, const Array& g, States& s) {
    switch (a.rule) {
        case OptimizerRule::kAdaGrad:
            s[0] = s[0] + g * g;
            p = p - a.lr * g / (ops::sqrt(s[0]) + a.eps);
            return;
        case OptimizerRule::kAdaDelta: {
            s[0] = a.rho * s[0] + (1 - a.rho) * g * g;
            const Array dx = ops::sqrt((s[1] + a.eps) / (s[0] + a.eps)) * g;
            s[1] = a.rho * s[1] + (1 - a.rho) * dx * dx;
            p = p - dx;
            return;
        }
        case OptimizerRule::kRmsprop:
            s[0] = a.alpha * s[0] + (1 - a.alpha) * g * g;
            p = p - a.lr * g / (a.eps_inside_sqrt ? ops::sqrt(s[0] + a.eps) : ops::sqrt(s[0]) + a.eps);
            return;
        case OptimizerRule::kRmspropGraves:
            s[0] = a.alpha * s[0] + (1 - a.alpha) * g * g;
            s[1] = a.alpha * s[1] + (1 - a.alpha) * g;
            s[2] = a.momentum * s[2] - a.lr * g / ops::sqrt(s[0] - s[1] * s[1] + a.eps);
            p = p + s[2];
            return;
        default: {  // kSmorms3
            const Array r = 1.0 / (s[0] + 1);
            s[1] = (1 - r) * s[1] + r * g;
            s[2] = (1 - r) * s[2] + r * g * g;
            const Array x = s[1] * s[1] / (s[2] + a.eps);
            p = p - g * ops::minimum(x, a.lr) / (ops::sqrt(s[2]) + a.eps);
            s[0] = 1 + s[0] * (1 - x);
        }
    }
}

void reference_adam(const OptimizerStepArgs& a, Array& p, const Array& g, States& s) {
    s[0] = s[0] + (1 - a.beta1) * (g - s[0]);
    s[1] = s[1] + (1 - a.beta2) * (g * g - s[1]);
    if (a.amsgrad) s[2] = ops::maximum(s[2], s[1]);
    Array step = a.lr / (ops::sqrt(a.amsgrad ? s[2] : s[1]) + a.eps);
    if (a.adabound) step = ops::clip(step, a.lower, a.upper);
    p = p - a.eta * (step * s[0] + a.weight_decay_rate * p);
}

void reference_msvag(const OptimizerStepArgs& a, Array& p, const Array& g, States& s) {
    s[0] = s[0] + (1 - a.beta) * (g - s[0]);
    s[1] = s[1] + (1 - a.beta) * (g * g - s[1]);
    const Array mt = s[0] / (1 - a.beta_power);
    const Array vt = s[1] / (1 - a.beta_power);
    const Array mt2 = mt * mt;
    const Array var = (vt - mt2) / (1 - a.rho);
    Array factor = ops::clip(mt2 / (mt2 + a.rho * var), 0.0, 1.0);
    factor = ops::where(ops::isnan(factor), 0.0, factor);
    p = p - a.eta * (a.lr * mt * factor + a.weight_decay_rate * p);
}

void reference_step(const OptimizerStepArgs& a, Array& p, const Array& g, States& s) {
    switch (a.rule) {
        case OptimizerRule::kSgd:
            p = p - a.lr * g;
            return;
        case OptimizerRule::kMomentumSgd:
        case OptimizerRule::kNesterovAg:
        case OptimizerRule::kCorrectedMomentumSgd:
            return reference_momentum(a, p, g, s);
        case OptimizerRule::kAdaGrad:
        case OptimizerRule::kAdaDelta:
        case OptimizerRule::kRmsprop:
        case OptimizerRule::kRmspropGraves:
        case OptimizerRule::kSmorms3:
            return reference_adaptive(a, p, g, s);
        case OptimizerRule::kAdam:
            return reference_adam(a, p, g, s);
        case OptimizerRule::kMsvag:
            return reference_msvag(a, p, g, s);
    }
}

struct Case {
    std::string name;
    OptimizerStepArgs args;
};

// Every rule and variant with hyperparameters away from the defaults, so a swapped
// scalar shows.
std::vector<Case> all_cases() {
    using R = OptimizerRule;
    return {
        {"sgd", {.rule = R::kSgd, .lr = 0.05}},
        {"momentum_sgd", {.rule = R::kMomentumSgd, .lr = 0.05, .momentum = 0.8}},
        {"nesterov_ag", {.rule = R::kNesterovAg, .lr = 0.05, .momentum = 0.8}},
        {"corrected_momentum_sgd", {.rule = R::kCorrectedMomentumSgd, .lr = 0.05, .momentum = 0.8}},
        {"ada_grad", {.rule = R::kAdaGrad, .lr = 0.03, .eps = 1e-3}},
        {"ada_delta", {.rule = R::kAdaDelta, .rho = 0.9, .eps = 1e-4}},
        {"rmsprop", {.rule = R::kRmsprop, .lr = 0.02, .alpha = 0.9, .eps = 1e-3}},
        {"rmsprop eps_inside_sqrt",
         {.rule = R::kRmsprop, .lr = 0.02, .alpha = 0.9, .eps = 1e-3, .eps_inside_sqrt = true}},
        {"rmsprop_graves", {.rule = R::kRmspropGraves, .lr = 0.02, .momentum = 0.7, .alpha = 0.9, .eps = 1e-3}},
        {"smorms3", {.rule = R::kSmorms3, .lr = 0.02, .eps = 1e-6}},
        {"adam", {.rule = R::kAdam, .eps = 1e-3, .beta1 = 0.8, .beta2 = 0.9}},
        {"adamw", {.rule = R::kAdam, .eps = 1e-3, .beta1 = 0.8, .beta2 = 0.9, .eta = 0.7, .weight_decay_rate = 0.05}},
        {"amsgrad", {.rule = R::kAdam, .eps = 1e-3, .beta1 = 0.8, .beta2 = 0.9, .amsgrad = true}},
        {"adabound", {.rule = R::kAdam, .eps = 1e-3, .beta1 = 0.8, .beta2 = 0.9, .adabound = true}},
        {"amsbound", {.rule = R::kAdam, .eps = 1e-3, .beta1 = 0.8, .beta2 = 0.9, .amsgrad = true, .adabound = true}},
        {"msvag", {.rule = R::kMsvag, .lr = 0.05, .rho = 0.5, .beta = 0.8, .eta = 0.7, .weight_decay_rate = 0.05}},
    };
}

// The step-dependent scalars the rules compute (Adam's alpha_t and bounds, MSVAG's beta power).
OptimizerStepArgs at_step(OptimizerStepArgs a, int t) {
    if (a.rule == OptimizerRule::kAdam) {
        a.lr = 0.01 * std::sqrt(1 - std::pow(a.beta2, t)) / (1 - std::pow(a.beta1, t));
        a.lower = 0.05 * (1 - 1 / (0.1 * t + 1));
        a.upper = 0.05 * (1 + 1 / (0.1 * t));
    }
    if (a.rule == OptimizerRule::kMsvag) a.beta_power = std::pow(a.beta, t);
    return a;
}

std::vector<double> values(int64_t n, double phase, double scale) {
    std::vector<double> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = scale * std::sin(0.37 * static_cast<double>(i) + phase);
    return v;
}

// Three steps with fresh grads; each step's reference starts from the kernel's current
// (rounded) param and state, so rounding does not compound.
void check_case(const Case& c, Dtype dtype, Layout layout, const Shape& shape) {
    const int64_t n = shape_size(shape);
    OptimizerStepArgs a = c.args;
    a.param = testing::make_array(values(n, 0.0, 2.0), shape, dtype, layout);
    Array* states[3] = {&a.s0, &a.s1, &a.s2};
    const int count = ops::optimizer_state_count(a);
    for (int i = 0; i < count; ++i) {
        const bool mem = a.rule == OptimizerRule::kSmorms3 && i == 0;  // SMORMS3 starts mem at 1
        *states[i] =
            testing::make_array(std::vector<double>(static_cast<size_t>(n), mem ? 1.0 : 0.0), shape, dtype, layout);
    }
    for (int t = 1; t <= 3; ++t) {
        INFO(c.name << " " << dtype_name(dtype) << " " << testing::layout_name(layout) << " " << shape << " step "
                    << t);
        a.grad = testing::make_array(values(n, 1.3 * t, 1.0 + 0.5 * t), shape, dtype, layout);
        const OptimizerStepArgs step = at_step(a, t);
        Array p = step.param.astype(Dtype::kFloat64);
        States s;
        for (int i = 0; i < count; ++i) s.push_back(states[i]->astype(Dtype::kFloat64));
        reference_step(step, p, step.grad.astype(Dtype::kFloat64), s);
        ops::optimizer_step(step);
        testing::check_allclose(step.param, p, testing::tolerance(dtype));
        for (int i = 0; i < count; ++i)
            testing::check_allclose(*states[i], s[static_cast<size_t>(i)], testing::tolerance(dtype));
    }
}

}  // namespace

TEST_CASE("optimizer_step: every rule against composite ops, all float dtypes and layouts", "[core][ops][optimizer]") {
    for (const Case& c : all_cases()) {
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            for (const Layout layout : testing::kAllLayouts) check_case(c, dtype, layout, {5, 7});
        }
    }
}

TEST_CASE("optimizer_step: arrays large enough for several threads", "[core][ops][optimizer]") {
    // One rule per number of state arrays (0 to 3), AMSBound and MSVAG.
    const std::vector<Case> cases = all_cases();
    for (const size_t i : {0, 1, 5, 9, 14, 15}) check_case(cases[i], Dtype::kFloat32, Layout::kContiguous, {300, 257});
    check_case(cases[14], Dtype::kFloat16, Layout::kStrided, {70001});
}

TEST_CASE("optimizer_step: state names and counts follow Chainer", "[core][ops][optimizer]") {
    const auto names = [](OptimizerStepArgs a) {
        std::string out;
        for (int i = 0; i < 3; ++i) out += std::string(ops::optimizer_state_name(a, i)) + ",";
        return out;
    };
    CHECK(names({.rule = OptimizerRule::kSgd}) == ",,,");
    CHECK(names({.rule = OptimizerRule::kMomentumSgd}) == "v,,,");
    CHECK(names({.rule = OptimizerRule::kAdaGrad}) == "h,,,");
    CHECK(names({.rule = OptimizerRule::kAdaDelta}) == "msg,msdx,,");
    CHECK(names({.rule = OptimizerRule::kRmsprop}) == "ms,,,");
    CHECK(names({.rule = OptimizerRule::kRmspropGraves}) == "n,g,delta,");
    CHECK(names({.rule = OptimizerRule::kSmorms3}) == "mem,g,g2,");
    CHECK(names({.rule = OptimizerRule::kAdam}) == "m,v,,");
    CHECK(names({.rule = OptimizerRule::kAdam, .amsgrad = true}) == "m,v,vhat,");
    CHECK(names({.rule = OptimizerRule::kMsvag}) == "m,v,,");
    CHECK(ops::optimizer_state_count({.rule = OptimizerRule::kAdam, .amsgrad = true}) == 3);
}

TEST_CASE("optimizer_step: size-0 arrays are a no-op", "[core][ops][optimizer]") {
    const Array p = ops::zeros({0, 3});
    ops::optimizer_step({.rule = OptimizerRule::kAdam, .param = p, .grad = p, .s0 = p, .s1 = p, .lr = 0.1});
    CHECK(p.size() == 0);
}

TEST_CASE("optimizer_step: errors name the rule and the array", "[core][ops][optimizer]") {
    using Catch::Matchers::Contains;
    const Array p = ops::zeros({2, 3});
    const Array v = ops::zeros({2, 3});
    OptimizerStepArgs a{.rule = OptimizerRule::kMomentumSgd, .param = p, .grad = ops::zeros({3, 2}), .s0 = v};
    CHECK_THROWS_AS(ops::optimizer_step(a), DimensionError);
    CHECK_THROWS_WITH(ops::optimizer_step(a), Contains("momentum_sgd") && Contains("grad.shape"));
    a.grad = ops::zeros({2, 3}, Dtype::kFloat64);
    CHECK_THROWS_AS(ops::optimizer_step(a), DtypeError);
    CHECK_THROWS_WITH(ops::optimizer_step(a), Contains("grad.dtype=float64"));
    a.grad = ops::zeros({2, 3});
    a.s0 = Array{};
    CHECK_THROWS_AS(ops::optimizer_step(a), ValueError);
    CHECK_THROWS_WITH(ops::optimizer_step(a), Contains("state 'v' is undefined"));
    a.s0 = ops::zeros({6});
    CHECK_THROWS_AS(ops::optimizer_step(a), DimensionError);
    CHECK_THROWS_WITH(ops::optimizer_step(a), Contains("state 'v'.shape"));
    a.param = ops::zeros({2, 3}, Dtype::kInt32);
    CHECK_THROWS_AS(ops::optimizer_step(a), DtypeError);
    CHECK_THROWS_AS(ops::optimizer_step({.rule = OptimizerRule::kSgd}), ValueError);
    CHECK_THROWS_WITH(ops::optimizer_step({.rule = OptimizerRule::kSgd}), Contains("param is undefined"));
}
