// The CUDA fused update against the native backend: every optimizer's program (and flag) on
// every float dtype for several steps with fresh grads, fused_update_multi against one by one,
// many tensors of odd sizes in one call (several launches: more tensors and more distinct
// hyperparameter sets than one launch takes), strided operands and size-0 steps.

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ops/fused_update.h"
#include "links/link.h"
#include "optimizers/optimizers.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

using Maker = std::function<FusedUpdateArgs(const Array& param, const Array& grad, const std::vector<Array>& states)>;

// The fused update of a `Rule` with the hyperparameters `hyper` at step t, on given arrays
// (the states under `names`).
template <class Rule>
Maker rule_update(std::vector<std::pair<std::string, double>> hyper, std::vector<std::string> names, int64_t t = 3) {
    return [=](const Array& param, const Array& grad, const std::vector<Array>& states) {
        Rule rule;
        for (const auto& [key, value] : hyper) rule.hyperparam().set(key, value);
        rule.t = t;
        for (size_t i = 0; i < names.size(); ++i) rule.state[names[i]] = states[i];
        return rule.update_args(param, grad);
    };
}

// A rule with hyperparameters and the value ranges of its states (some must be positive).
struct RuleCase {
    std::string name;
    Maker make;
    int n_states;
    double state_low[3], state_high[3];
};

std::vector<RuleCase> rule_cases() {
    using namespace optimizers;
    const double a = -2.0, b = 2.0, pl = 0.1, ph = 2.0;  // any sign; positive
    const std::vector<std::pair<std::string, double>> adam = {
        {"alpha", 0.01}, {"eps", 1e-3}, {"eta", 0.5}, {"weight_decay_rate", 0.01}};
    auto with = [](std::vector<std::pair<std::string, double>> h, std::pair<std::string, double> more) {
        h.push_back(std::move(more));
        return h;
    };
    return {
        {"sgd", rule_update<SGDRule>({{"lr", 0.1}}, {}), 0, {a, a, a}, {b, b, b}},
        {"momentum_sgd",
         rule_update<MomentumSGDRule>({{"lr", 0.1}, {"momentum", 0.9}}, {"v"}),
         1,
         {a, a, a},
         {b, b, b}},
        {"nesterov_ag", rule_update<NesterovAGRule>({{"lr", 0.1}, {"momentum", 0.9}}, {"v"}), 1, {a, a, a}, {b, b, b}},
        {"corrected_momentum_sgd",
         rule_update<CorrectedMomentumSGDRule>({{"lr", 0.1}, {"momentum", 0.9}}, {"v"}),
         1,
         {a, a, a},
         {b, b, b}},
        {"ada_grad", rule_update<AdaGradRule>({{"lr", 0.1}, {"eps", 1e-3}}, {"h"}), 1, {pl, a, a}, {ph, b, b}},
        {"ada_delta",
         rule_update<AdaDeltaRule>({{"rho", 0.95}, {"eps", 1e-3}}, {"msg", "msdx"}),
         2,
         {pl, pl, a},
         {ph, ph, b}},
        {"rmsprop",
         rule_update<RMSpropRule>({{"lr", 0.1}, {"alpha", 0.99}, {"eps", 1e-3}}, {"ms"}),
         1,
         {pl, a, a},
         {ph, b, b}},
        {"rmsprop eps_inside_sqrt",
         rule_update<RMSpropRule>({{"lr", 0.1}, {"alpha", 0.99}, {"eps", 1e-3}, {"eps_inside_sqrt", 1.0}}, {"ms"}),
         1,
         {pl, a, a},
         {ph, b, b}},
        // s1^2 <= n - 2 (the rule's averages keep s1^2 <= n): the square root stays far from 0.
        {"rmsprop_graves",
         rule_update<RMSpropGravesRule>({{"lr", 0.01}, {"momentum", 0.9}, {"alpha", 0.95}, {"eps", 1e-2}},
                                        {"n", "g", "delta"}),
         3,
         {6.0, -2.0, a},
         {8.0, 2.0, b}},
        // g^2 <= g2 (as the rule's own averages keep it), so mem stays >= 1.
        {"smorms3",
         rule_update<SMORMS3Rule>({{"lr", 0.01}, {"eps", 1e-3}}, {"mem", "g", "g2"}),
         3,
         {pl, -0.3, 1.0},
         {ph, 0.3, 2.0}},
        {"adam", rule_update<AdamRule>(adam, {"m", "v"}), 2, {a, pl, pl}, {b, ph, ph}},
        {"amsgrad",
         rule_update<AdamRule>(with(adam, {"amsgrad", 1.0}), {"m", "v", "vhat"}),
         3,
         {a, pl, pl},
         {b, ph, ph}},
        {"adabound",
         rule_update<AdamRule>(with(with(adam, {"adabound", 1.0}), {"final_lr", 0.1}), {"m", "v"}),
         2,
         {a, pl, pl},
         {b, ph, ph}},
        {"amsbound",
         rule_update<AdamRule>(with(with(adam, {"adabound", 1.0}), {"amsgrad", 1.0}), {"m", "v", "vhat"}),
         3,
         {a, pl, pl},
         {b, ph, ph}},
        {"msvag",
         rule_update<MSVAGRule>({{"lr", 0.1}, {"beta", 0.9}, {"eta", 1.0}, {"weight_decay_rate", 0.01}}, {"m", "v"}),
         2,
         {a, pl, a},
         {b, ph, b}},
    };
}

// A native update of `rc` on fresh random arrays of `shape` and `dtype`.
FusedUpdateArgs native_step(const RuleCase& rc, const Shape& shape, Dtype dtype, uint64_t seed,
                            Layout layout = Layout::kContiguous) {
    std::vector<Array> states;
    for (int i = 0; i < rc.n_states; ++i) {
        states.push_back(
            random_array(shape, dtype, seed + 2 + static_cast<uint64_t>(i), rc.state_low[i], rc.state_high[i], layout));
    }
    return rc.make(random_array(shape, dtype, seed, -2.0, 2.0, layout),
                   random_array(shape, dtype, seed + 1, -2.0, 2.0, layout), states);
}

// The same update on cuda:0 copies (same layout kind).
FusedUpdateArgs to_cuda_step(const FusedUpdateArgs& s, Layout layout = Layout::kContiguous) {
    FusedUpdateArgs c = s;
    c.param = to_cuda(s.param, layout);
    c.grad = to_cuda(s.grad, layout);
    for (int i = 0; i < s.program->n_states(); ++i) {
        c.states[static_cast<size_t>(i)] = to_cuda(s.states[static_cast<size_t>(i)], layout);
    }
    return c;
}

// param and every state of `actual` (on cuda:0) close to `expected`'s (native).
void check_step_close(const FusedUpdateArgs& actual, const FusedUpdateArgs& expected) {
    const Tolerance tol = tolerance(expected.param.dtype());
    CHECK(actual.param.device() == Device::cuda(0));
    check_allclose(actual.param.to_device(Device::native()), expected.param, tol);
    for (int i = 0; i < expected.program->n_states(); ++i) {
        const auto k = static_cast<size_t>(i);
        INFO("state " << expected.program->state_names[k]);
        check_allclose(actual.states[k].to_device(Device::native()), expected.states[k], tol);
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
                CHECK(ops::pending_fused_updates() == 0);
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

TEST_CASE("cuda: fused_update matches native for every rule and float dtype", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const RuleCase& rc : rule_cases()) {
        for (const Dtype dtype : kCudaFloatDtypes) {
            for (const Shape& shape : {Shape{1}, Shape{7, 9}, Shape{4097}, Shape{70001}}) {
                INFO(rc.name << ", dtype " << dtype_name(dtype) << ", shape " << shape);
                FusedUpdateArgs n = native_step(rc, shape, dtype, seed);
                seed += 10;
                FusedUpdateArgs c = to_cuda_step(n);
                for (int step = 0; step < 3; ++step) {
                    n.grad = random_array(shape, dtype, seed++);
                    c.grad = to_cuda(n.grad);
                    ops::fused_update(n);
                    ops::fused_update(c);
                    check_step_close(c, n);
                }
            }
        }
    }
}

TEST_CASE("cuda: fused_update on strided and offset operands matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 5000;
    for (const RuleCase& rc : rule_cases()) {
        for (const Layout layout : kAllLayouts) {
            INFO(rc.name << ", layout " << layout_name(layout));
            const FusedUpdateArgs n = native_step(rc, {5, 6}, Dtype::kFloat32, seed, layout);
            seed += 10;
            const FusedUpdateArgs c = to_cuda_step(n, layout);
            ops::fused_update(n);
            ops::fused_update(c);
            check_step_close(c, n);
        }
    }
}

TEST_CASE("cuda: fused_update_multi over many tensors of odd sizes matches native and one by one", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<RuleCase> rules = rule_cases();
    const Shape sizes[] = {{1}, {3}, {4097}, {5000}, {0}, {2, 3}, {4096}, {4095}};
    std::vector<FusedUpdateArgs> native, multi, single;
    uint64_t seed = 9000;
    // Every rule and dtype, plus 60 SGD steps with distinct learning rates: more tensors and
    // more distinct hyperparameter sets than one launch takes.
    for (size_t i = 0; i < rules.size() * 4 + 60; ++i) {
        const bool extra = i >= rules.size() * 4;
        RuleCase rc = extra ? rules[0] : rules[i / 4];
        if (extra) rc.make = rule_update<optimizers::SGDRule>({{"lr", 0.01 * static_cast<double>(i)}}, {});
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
        ops::fused_update_multi(native);
        ops::fused_update_multi(multi);
        for (const FusedUpdateArgs& s : single) ops::fused_update(s);
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

TEST_CASE("cuda: a FusedUpdateBatch on cuda gives the one-by-one results", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<RuleCase> rules = rule_cases();
    std::vector<FusedUpdateArgs> batched, single;
    uint64_t seed = 20000;
    for (const RuleCase& rc : rules) {
        const FusedUpdateArgs n = native_step(rc, {33}, Dtype::kFloat32, seed);
        seed += 10;
        batched.push_back(to_cuda_step(n));
        single.push_back(to_cuda_step(n));
    }
    {
        ops::FusedUpdateBatch batch;
        for (const FusedUpdateArgs& s : batched) ops::fused_update(s);
        CHECK(ops::pending_fused_updates() == static_cast<int64_t>(batched.size()));
    }
    for (const FusedUpdateArgs& s : single) ops::fused_update(s);
    for (size_t i = 0; i < batched.size(); ++i) {
        INFO(rules[i].name);
        CHECK(to_doubles(batched[i].param.to_device(Device::native())) ==
              to_doubles(single[i].param.to_device(Device::native())));
    }
}

}  // namespace rensa::testing
