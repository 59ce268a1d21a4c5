// The CUDA optimizer kernels against the native backend: every rule (and flag) on every
// float dtype for several steps with fresh grads, optimizer_step_multi against one by one,
// many tensors of odd sizes in one call (several launches: more tensors and more distinct
// hyperparameter sets than one launch takes), strided operands and size-0 steps.

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/ops/optimizer_step.h"
#include "links/link.h"
#include "optimizers/optimizers.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

// A rule with hyperparameters and the value ranges of its states (some must be positive).
struct RuleCase {
    std::string name;
    OptimizerStepArgs args;  // the scalars; arrays filled in per test
    double state_low[3], state_high[3];
};

std::vector<RuleCase> rule_cases() {
    using R = OptimizerRule;
    const double a = -2.0, b = 2.0, pl = 0.1, ph = 2.0;  // any sign; positive
    return {
        {"sgd", {.rule = R::kSgd, .lr = 0.1}, {a, a, a}, {b, b, b}},
        {"momentum_sgd", {.rule = R::kMomentumSgd, .lr = 0.1, .momentum = 0.9}, {a, a, a}, {b, b, b}},
        {"nesterov_ag", {.rule = R::kNesterovAg, .lr = 0.1, .momentum = 0.9}, {a, a, a}, {b, b, b}},
        {"corrected_momentum_sgd",
         {.rule = R::kCorrectedMomentumSgd, .lr = 0.1, .momentum = 0.9},
         {a, a, a},
         {b, b, b}},
        {"ada_grad", {.rule = R::kAdaGrad, .lr = 0.1, .eps = 1e-3}, {pl, a, a}, {ph, b, b}},
        {"ada_delta", {.rule = R::kAdaDelta, .rho = 0.95, .eps = 1e-3}, {pl, pl, a}, {ph, ph, b}},
        {"rmsprop", {.rule = R::kRmsprop, .lr = 0.1, .alpha = 0.99, .eps = 1e-3}, {pl, a, a}, {ph, b, b}},
        {"rmsprop eps_inside_sqrt",
         {.rule = R::kRmsprop, .lr = 0.1, .alpha = 0.99, .eps = 1e-3, .eps_inside_sqrt = true},
         {pl, a, a},
         {ph, b, b}},
        // s1^2 <= n - 2 (the rule's averages keep s1^2 <= n): the square root stays far from 0.
        {"rmsprop_graves",
         {.rule = R::kRmspropGraves, .lr = 0.01, .momentum = 0.9, .alpha = 0.95, .eps = 1e-2},
         {6.0, -2.0, a},
         {8.0, 2.0, b}},
        // g^2 <= g2 (as the rule's own averages keep it), so mem stays >= 1.
        {"smorms3", {.rule = R::kSmorms3, .lr = 0.01, .eps = 1e-3}, {pl, -0.3, 1.0}, {ph, 0.3, 2.0}},
        {"adam",
         {.rule = R::kAdam,
          .lr = 0.01,
          .eps = 1e-3,
          .beta1 = 0.9,
          .beta2 = 0.999,
          .eta = 0.5,
          .weight_decay_rate = 0.01},
         {a, pl, pl},
         {b, ph, ph}},
        {"amsgrad",
         {.rule = R::kAdam, .lr = 0.01, .eps = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .amsgrad = true},
         {a, pl, pl},
         {b, ph, ph}},
        {"adabound",
         {.rule = R::kAdam,
          .lr = 0.01,
          .eps = 1e-3,
          .beta1 = 0.9,
          .beta2 = 0.999,
          .lower = 0.02,
          .upper = 0.2,
          .adabound = true},
         {a, pl, pl},
         {b, ph, ph}},
        {"amsbound",
         {.rule = R::kAdam,
          .lr = 0.01,
          .eps = 1e-3,
          .beta1 = 0.9,
          .beta2 = 0.999,
          .lower = 0.02,
          .upper = 0.2,
          .amsgrad = true,
          .adabound = true},
         {a, pl, pl},
         {b, ph, ph}},
        {"msvag",
         {.rule = R::kMsvag,
          .lr = 0.1,
          .rho = 0.5,
          .beta = 0.9,
          .eta = 1.0,
          .weight_decay_rate = 0.01,
          .beta_power = 0.81},
         {a, pl, a},
         {b, ph, b}},
    };
}

// A native step of `rc` on fresh random arrays of `shape` and `dtype`.
OptimizerStepArgs native_step(const RuleCase& rc, const Shape& shape, Dtype dtype, uint64_t seed,
                              Layout layout = Layout::kContiguous) {
    OptimizerStepArgs s = rc.args;
    s.param = random_array(shape, dtype, seed, -2.0, 2.0, layout);
    s.grad = random_array(shape, dtype, seed + 1, -2.0, 2.0, layout);
    Array* states[3] = {&s.s0, &s.s1, &s.s2};
    for (int i = 0; i < ops::optimizer_state_count(s); ++i) {
        *states[i] =
            random_array(shape, dtype, seed + 2 + static_cast<uint64_t>(i), rc.state_low[i], rc.state_high[i], layout);
    }
    return s;
}

// The same step on cuda:0 copies (same layout kind).
OptimizerStepArgs to_cuda_step(const OptimizerStepArgs& s, Layout layout = Layout::kContiguous) {
    OptimizerStepArgs c = s;
    c.param = to_cuda(s.param, layout);
    c.grad = to_cuda(s.grad, layout);
    const Array* from[3] = {&s.s0, &s.s1, &s.s2};
    Array* to[3] = {&c.s0, &c.s1, &c.s2};
    for (int i = 0; i < ops::optimizer_state_count(s); ++i) *to[i] = to_cuda(*from[i], layout);
    return c;
}

// param and every state of `actual` (on cuda:0) close to `expected`'s (native).
void check_step_close(const OptimizerStepArgs& actual, const OptimizerStepArgs& expected) {
    const Tolerance tol = tolerance(expected.param.dtype());
    CHECK(actual.param.device() == Device::cuda(0));
    check_allclose(actual.param.to_device(Device::native()), expected.param, tol);
    const Array* a[3] = {&actual.s0, &actual.s1, &actual.s2};
    const Array* e[3] = {&expected.s0, &expected.s1, &expected.s2};
    for (int i = 0; i < ops::optimizer_state_count(expected); ++i) {
        INFO("state " << ops::optimizer_state_name(expected, i));
        check_allclose(a[i]->to_device(Device::native()), *e[i], tol);
    }
}

// Parameters of every float dtype and odd sizes.
class FourParams : public links::Link {
public:
    links::Parameter a, b, c, d;
    FourParams() {
        register_param("a", &FourParams::a, links::Parameter(random_array({3, 5}, Dtype::kFloat32, 1)));
        register_param("b", &FourParams::b, links::Parameter(random_array({7}, Dtype::kFloat64, 2)));
        register_param("c", &FourParams::c, links::Parameter(random_array({2, 3, 4}, Dtype::kFloat16, 3)));
        register_param("d", &FourParams::d, links::Parameter(random_array({4097}, Dtype::kBFloat16, 4)));
    }
};

}  // namespace

TEST_CASE("cuda: optimizers update a link on cuda like on native (batched, float32 master copies)", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<std::function<std::unique_ptr<optimizers::GradientMethod>()>> makers = {
        [] { return std::make_unique<optimizers::MomentumSGD>(optimizers::MomentumSGDOptions{.lr = 0.1}); },
        [] { return std::make_unique<optimizers::Adam>(optimizers::AdamOptions{.alpha = 0.01, .eps = 1e-3}); },
        [] { return std::make_unique<optimizers::RMSprop>(optimizers::RMSpropOptions{.eps = 1e-3}); },
    };
    for (size_t k = 0; k < makers.size(); ++k) {
        for (const bool fp32 : {false, true}) {
            INFO("optimizer " << k << ", use_fp32_update " << fp32);
            auto native = std::make_shared<FourParams>(), gpu = std::make_shared<FourParams>();
            gpu->to_device(Device::cuda(0));
            const auto on = makers[k](), og = makers[k]();
            on->use_fp32_update(fp32);
            og->use_fp32_update(fp32);
            on->setup(native);
            og->setup(gpu);
            for (int step = 0; step < 3; ++step) {
                const auto pn = native->params(), pg = gpu->params();
                for (size_t i = 0; i < pn.size(); ++i) {
                    const Array g = random_array(pn[i].array().shape(), pn[i].array().dtype(), 100 + 10 * step + i);
                    pn[i].set_grad(g);
                    pg[i].set_grad(to_cuda(g));
                }
                on->update();
                og->update();
                CHECK(ops::pending_optimizer_steps() == 0);
                for (size_t i = 0; i < pn.size(); ++i) {
                    INFO("param " << i << ", step " << step);
                    CHECK(pg[i].array().device() == Device::cuda(0));
                    check_allclose(pg[i].array().to_device(Device::native()), pn[i].array(),
                                   tolerance(pn[i].array().dtype()));
                }
            }
        }
    }
}

TEST_CASE("cuda: optimizer_step matches native for every rule and float dtype", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const RuleCase& rc : rule_cases()) {
        for (const Dtype dtype : kCudaFloatDtypes) {
            for (const Shape& shape : {Shape{1}, Shape{7, 9}, Shape{4097}, Shape{70001}}) {
                INFO(rc.name << ", dtype " << dtype_name(dtype) << ", shape " << shape);
                OptimizerStepArgs n = native_step(rc, shape, dtype, seed);
                seed += 10;
                OptimizerStepArgs c = to_cuda_step(n);
                for (int step = 0; step < 3; ++step) {
                    n.grad = random_array(shape, dtype, seed++);
                    c.grad = to_cuda(n.grad);
                    ops::optimizer_step(n);
                    ops::optimizer_step(c);
                    check_step_close(c, n);
                }
            }
        }
    }
}

TEST_CASE("cuda: optimizer_step on strided and offset operands matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 5000;
    for (const RuleCase& rc : rule_cases()) {
        for (const Layout layout : kAllLayouts) {
            INFO(rc.name << ", layout " << layout_name(layout));
            const OptimizerStepArgs n = native_step(rc, {5, 6}, Dtype::kFloat32, seed, layout);
            seed += 10;
            const OptimizerStepArgs c = to_cuda_step(n, layout);
            ops::optimizer_step(n);
            ops::optimizer_step(c);
            check_step_close(c, n);
        }
    }
}

TEST_CASE("cuda: optimizer_step_multi over many tensors of odd sizes matches native and one by one", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<RuleCase> rules = rule_cases();
    const Shape sizes[] = {{1}, {3}, {4097}, {5000}, {0}, {2, 3}, {4096}, {4095}};
    std::vector<OptimizerStepArgs> native, multi, single;
    uint64_t seed = 9000;
    // Every rule and dtype, plus 60 SGD steps with distinct learning rates: more tensors and
    // more distinct hyperparameter sets than one launch takes.
    for (size_t i = 0; i < rules.size() * 4 + 60; ++i) {
        const bool extra = i >= rules.size() * 4;
        RuleCase rc = extra ? rules[0] : rules[i / 4];
        if (extra) rc.args.lr = 0.01 * static_cast<double>(i);
        const Dtype dtype = kCudaFloatDtypes[i % 4];
        const Shape shape = i % 29 == 5 ? Shape{1000003} : sizes[(i * 3) % 8];
        native.push_back(native_step(rc, shape, dtype, seed));
        seed += 10;
        multi.push_back(to_cuda_step(native.back()));
        single.push_back(to_cuda_step(native.back()));
    }
    for (int step = 0; step < 2; ++step) {
        for (size_t i = 0; i < native.size(); ++i) {
            native[i].grad = random_array(native[i].param.shape(), native[i].param.dtype(), seed++);
            multi[i].grad = single[i].grad = to_cuda(native[i].grad);
        }
        ops::optimizer_step_multi(native);
        ops::optimizer_step_multi(multi);
        for (const OptimizerStepArgs& s : single) ops::optimizer_step(s);
        for (size_t i = 0; i < native.size(); ++i) {
            INFO("step " << i << " (" << rules[std::min(i / 4, rules.size() - 1)].name << "), shape "
                         << native[i].param.shape() << ", dtype " << dtype_name(native[i].param.dtype()));
            check_step_close(multi[i], native[i]);
            // The fused launch and the single one run the same code: identical results.
            CHECK(to_doubles(multi[i].param.to_device(Device::native())) ==
                  to_doubles(single[i].param.to_device(Device::native())));
        }
    }
}

TEST_CASE("cuda: an OptimizerStepBatch on cuda gives the one-by-one results", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<RuleCase> rules = rule_cases();
    std::vector<OptimizerStepArgs> batched, single;
    uint64_t seed = 20000;
    for (const RuleCase& rc : rules) {
        const OptimizerStepArgs n = native_step(rc, {33}, Dtype::kFloat32, seed);
        seed += 10;
        batched.push_back(to_cuda_step(n));
        single.push_back(to_cuda_step(n));
    }
    {
        ops::OptimizerStepBatch batch;
        for (const OptimizerStepArgs& s : batched) ops::optimizer_step(s);
        CHECK(ops::pending_optimizer_steps() == static_cast<int64_t>(batched.size()));
    }
    for (const OptimizerStepArgs& s : single) ops::optimizer_step(s);
    for (size_t i = 0; i < batched.size(); ++i) {
        INFO(rules[i].name);
        CHECK(to_doubles(batched[i].param.to_device(Device::native())) ==
              to_doubles(single[i].param.to_device(Device::native())));
    }
}

}  // namespace rensa::testing
