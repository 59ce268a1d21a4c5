// Batched optimizer updates (Note [Batched optimizer steps] in core/ops/optimizer_step.h):
// GradientMethod::update queues every parameter's step and runs one optimizer_step_multi;
// the results must be bit-identical to updating the parameters one by one.

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "autograd/modes.h"
#include "core/array.h"
#include "core/ops/elementwise.h"
#include "core/ops/optimizer_step.h"
#include "links/link.h"
#include "optimizers/hooks.h"
#include "optimizers/optimizers.h"
#include "tests/testing/testing.h"

namespace rensa::testing {
namespace {

using optimizers::GradientMethod;

// Deterministic values in about [-1.6, 1.6], never zero.
std::vector<double> values(int64_t n, double seed) {
    std::vector<double> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) {
        const double x = std::sin(seed * 12.9898 + static_cast<double>(i) * 0.731) * 1.5;
        v[i] = x >= 0 ? x + 0.05 : x - 0.05;
    }
    return v;
}

Array make(const Shape& shape, Dtype dtype, double seed, Layout layout = Layout::kContiguous) {
    int64_t n = 1;
    for (const int64_t d : shape) n *= d;
    return make_array(values(n, seed), shape, dtype, layout);
}

// Parameters of mixed dtypes and odd sizes.
class MixedLink : public links::Link {
public:
    links::Parameter a, b, c, d, e;
    explicit MixedLink(Dtype low = Dtype::kFloat16) {
        register_param("a", &MixedLink::a, links::Parameter(make({3, 5}, Dtype::kFloat32, 1)));
        register_param("b", &MixedLink::b, links::Parameter(make({7}, Dtype::kFloat64, 2)));
        register_param("c", &MixedLink::c, links::Parameter(make({2, 3, 4}, low, 3)));
        register_param("d", &MixedLink::d, links::Parameter(make({1}, Dtype::kFloat32, 4)));
        register_param("e", &MixedLink::e, links::Parameter(make({4097}, Dtype::kFloat32, 5)));
    }
};

void set_grads(const links::Link& link, int step) {
    double seed = 10.0 * step;
    for (const links::Parameter& p : link.params()) {
        seed += 1.0;
        p.set_grad(make(p.array().shape(), p.array().dtype(), seed));
    }
}

// GradientMethod::update without the batch: every parameter's step runs on its own.
void update_one_by_one(GradientMethod& optimizer, const links::Link& link) {
    NoBackpropMode no_graph;
    ++optimizer.t;
    for (const links::Parameter& param : link.params()) param.update();
}

void check_same(const links::Link& x, const links::Link& y) {
    const auto px = x.params(), py = y.params();
    REQUIRE(px.size() == py.size());
    for (size_t i = 0; i < px.size(); ++i) {
        INFO("param " << i);
        CHECK(to_doubles(px[i].array()) == to_doubles(py[i].array()));
        auto* rx = dynamic_cast<optimizers::UpdateRule*>(px[i].update_rule());
        auto* ry = dynamic_cast<optimizers::UpdateRule*>(py[i].update_rule());
        REQUIRE(rx != nullptr);
        REQUIRE(ry != nullptr);
        CHECK(rx->t == ry->t);
        REQUIRE(rx->state.size() == ry->state.size());
        for (const auto& [key, value] : rx->state) {
            INFO("state " << key);
            CHECK(to_doubles(value) == to_doubles(ry->state.at(key)));
        }
    }
}

using Maker = std::function<std::unique_ptr<GradientMethod>()>;

std::vector<std::pair<std::string, Maker>> every_rule() {
    using namespace optimizers;
    return {
        {"SGD", [] { return std::make_unique<SGD>(SGDOptions{.lr = 0.1}); }},
        {"MomentumSGD", [] { return std::make_unique<MomentumSGD>(MomentumSGDOptions{.lr = 0.1}); }},
        {"NesterovAG", [] { return std::make_unique<NesterovAG>(NesterovAGOptions{.lr = 0.1}); }},
        {"CorrectedMomentumSGD",
         [] { return std::make_unique<CorrectedMomentumSGD>(CorrectedMomentumSGDOptions{.lr = 0.1}); }},
        {"AdaGrad", [] { return std::make_unique<AdaGrad>(AdaGradOptions{.lr = 0.1}); }},
        {"AdaDelta", [] { return std::make_unique<AdaDelta>(); }},
        {"RMSprop", [] { return std::make_unique<RMSprop>(); }},
        {"RMSprop eps_inside_sqrt", [] { return std::make_unique<RMSprop>(RMSpropOptions{.eps_inside_sqrt = true}); }},
        {"RMSpropGraves", [] { return std::make_unique<RMSpropGraves>(RMSpropGravesOptions{.eps = 1e-2}); }},
        {"SMORMS3", [] { return std::make_unique<SMORMS3>(SMORMS3Options{.lr = 0.01, .eps = 1e-8}); }},
        {"Adam",
         [] { return std::make_unique<Adam>(AdamOptions{.alpha = 0.01, .eps = 1e-4, .weight_decay_rate = 0.01}); }},
        {"AMSGrad", [] { return std::make_unique<AMSGrad>(AMSGradOptions{.eps = 1e-4}); }},
        {"AdaBound", [] { return std::make_unique<AdaBound>(AdaBoundOptions{.eps = 1e-4}); }},
        {"AMSBound", [] { return std::make_unique<AMSBound>(AdaBoundOptions{.eps = 1e-4}); }},
        {"MSVAG", [] { return std::make_unique<MSVAG>(); }},
    };
}

// Three updates of a batched optimizer and a one-by-one one on identical links.
void check_batched_matches(const Maker& make_optimizer, Dtype low, bool fp32,
                           const std::function<void(GradientMethod&)>& decorate = {}) {
    auto x = std::make_shared<MixedLink>(low), y = std::make_shared<MixedLink>(low);
    const std::unique_ptr<GradientMethod> ox = make_optimizer(), oy = make_optimizer();
    ox->use_fp32_update(fp32);
    oy->use_fp32_update(fp32);
    ox->setup(x);
    oy->setup(y);
    if (decorate) {
        decorate(*ox);
        decorate(*oy);
    }
    for (int step = 0; step < 3; ++step) {
        set_grads(*x, step);
        set_grads(*y, step);
        ox->update();
        update_one_by_one(*oy, *y);
        CHECK(ops::pending_optimizer_steps() == 0);
        check_same(*x, *y);
    }
}

TEST_CASE("multi step: batched updates match one by one for every rule", "[optimizers]") {
    for (const auto& [name, maker] : every_rule()) {
        for (const Dtype low : {Dtype::kFloat16, Dtype::kBFloat16}) {
            for (const bool fp32 : {false, true}) {
                INFO(name << " low=" << dtype_name(low) << " fp32=" << fp32);
                check_batched_matches(maker, low, fp32);
            }
        }
    }
}

// Records each parameter's values when it runs (a post hook must see its param updated).
class RecordHook : public optimizers::OptimizerHook {
public:
    explicit RecordHook(std::shared_ptr<std::vector<std::vector<double>>> log) : log_{std::move(log)} {}
    std::string name() const override { return "Record"; }
    optimizers::HookTiming timing() const override { return optimizers::HookTiming::kPost; }
    void operator()(optimizers::UpdateRule&, const links::Parameter& param) override {
        log_->push_back(to_doubles(param.array()));
    }

private:
    std::shared_ptr<std::vector<std::vector<double>>> log_;
};

TEST_CASE("multi step: per-parameter hooks see the same arrays as one by one", "[optimizers]") {
    for (const auto& [name, maker] : every_rule()) {
        INFO(name);
        auto log_x = std::make_shared<std::vector<std::vector<double>>>();
        auto log_y = std::make_shared<std::vector<std::vector<double>>>();
        int which = 0;
        check_batched_matches(maker, Dtype::kFloat16, true, [&](GradientMethod& optimizer) {
            const auto log = which++ == 0 ? log_x : log_y;
            for (const links::Parameter& p : optimizer.target().params()) {
                auto* rule = dynamic_cast<optimizers::UpdateRule*>(p.update_rule());
                rule->add_hook(std::make_shared<optimizer_hooks::WeightDecay>(0.1));
                rule->add_hook(std::make_shared<RecordHook>(log));
            }
        });
        CHECK(log_x->size() == 15);
        CHECK(*log_x == *log_y);
    }
}

TEST_CASE("multi step: optimizer-level hooks keep the results", "[optimizers]") {
    for (const auto& [name, maker] : every_rule()) {
        INFO(name);
        auto x = std::make_shared<MixedLink>(), y = std::make_shared<MixedLink>();
        const std::unique_ptr<GradientMethod> ox = maker(), oy = maker();
        ox->setup(x);
        oy->setup(y);
        ox->add_hook(std::make_shared<optimizer_hooks::WeightDecay>(0.01));
        for (int step = 0; step < 2; ++step) {
            set_grads(*x, step);
            set_grads(*y, step);
            ox->update();
            // The reference: the hook by hand, then the steps one by one.
            optimizer_hooks::WeightDecay(0.01)(*oy);
            update_one_by_one(*oy, *y);
            check_same(*x, *y);
        }
    }
}

// A rule that records how many steps are queued right after its own.
class ProbeRule : public optimizers::UpdateRule {
public:
    ProbeRule(std::shared_ptr<const optimizers::Hyperparameter> parent, std::shared_ptr<std::vector<int64_t>> log)
        : UpdateRule(std::move(parent)), log_{std::move(log)} {}

protected:
    void init_state(const Array&) override {}
    void update_core(const Array& param, const Array& grad) override {
        ops::optimizer_step({.rule = OptimizerRule::kSgd, .param = param, .grad = grad, .lr = 0.5});
        log_->push_back(ops::pending_optimizer_steps());
    }

private:
    std::shared_ptr<std::vector<int64_t>> log_;
};

class ProbeMethod : public GradientMethod {
public:
    std::shared_ptr<std::vector<int64_t>> log = std::make_shared<std::vector<int64_t>>();

protected:
    std::shared_ptr<optimizers::UpdateRule> create_update_rule() override {
        return std::make_shared<ProbeRule>(hyperparam_ptr(), log);
    }
};

TEST_CASE("multi step: GradientMethod::update queues every parameter's step", "[optimizers]") {
    auto link = std::make_shared<MixedLink>(Dtype::kFloat32);
    ProbeMethod optimizer;
    optimizer.setup(link);
    set_grads(*link, 0);
    const std::vector<double> w = to_doubles(link->a.array()), g = to_doubles(link->a.grad());
    optimizer.update();
    CHECK(*optimizer.log == std::vector<int64_t>{1, 2, 3, 4, 5});
    CHECK(ops::pending_optimizer_steps() == 0);
    const std::vector<double> after = to_doubles(link->a.array());
    for (size_t i = 0; i < w.size(); ++i) CHECK(after[i] == Approx(w[i] - 0.5 * g[i]));
}

OptimizerStepArgs momentum_step(const Array& p, const Array& g, const Array& v, double lr = 0.1) {
    return {.rule = OptimizerRule::kMomentumSgd, .param = p, .grad = g, .s0 = v, .lr = lr, .momentum = 0.9};
}

TEST_CASE("multi step: optimizer_step_multi matches optimizer_step in every layout", "[optimizers]") {
    for (const Layout layout : kAllLayouts) {
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            INFO(layout_name(layout) << " " << dtype_name(dtype));
            std::vector<OptimizerStepArgs> multi, single;
            for (int i = 0; i < 3; ++i) {
                const Shape shape{3, 4 + i};
                const double seed = 100.0 + 10 * i;
                multi.push_back({.rule = OptimizerRule::kAdam,
                                 .param = make(shape, dtype, seed, layout),
                                 .grad = make(shape, dtype, seed + 1, layout),
                                 .s0 = make(shape, dtype, seed + 2, layout),
                                 .s1 = ops::abs(make(shape, dtype, seed + 3, layout)),
                                 .s2 = ops::abs(make(shape, dtype, seed + 4, layout)),
                                 .lr = 0.01,
                                 .eps = 1e-3,
                                 .beta1 = 0.9,
                                 .beta2 = 0.99,
                                 .amsgrad = i == 1});
                OptimizerStepArgs s = multi.back();
                s.param = s.param.copy();
                s.s0 = s.s0.copy();
                s.s1 = s.s1.copy();
                s.s2 = s.s2.copy();
                single.push_back(s);
            }
            multi.push_back(momentum_step(make({0}, dtype, 1), make({0}, dtype, 2), make({0}, dtype, 3)));
            ops::optimizer_step_multi(multi);
            for (int i = 0; i < 3; ++i) ops::optimizer_step(single[static_cast<size_t>(i)]);
            for (size_t i = 0; i < 3; ++i) {
                CHECK(to_doubles(multi[i].param) == to_doubles(single[i].param));
                CHECK(to_doubles(multi[i].s0) == to_doubles(single[i].s0));
                CHECK(to_doubles(multi[i].s1) == to_doubles(single[i].s1));
                CHECK(to_doubles(multi[i].s2) == to_doubles(single[i].s2));
            }
        }
    }
}

TEST_CASE("multi step: optimizer_step_multi checks every step like optimizer_step", "[optimizers]") {
    const Array p = make({3}, Dtype::kFloat32, 1);
    const Array v = make({3}, Dtype::kFloat32, 2);
    const std::vector<OptimizerStepArgs> steps = {momentum_step(p, make({3}, Dtype::kFloat32, 3), v),
                                                  momentum_step(p.copy(), make({4}, Dtype::kFloat32, 3), v.copy())};
    const std::vector<double> before = to_doubles(p);
    CHECK_THROWS_AS(ops::optimizer_step_multi(steps), DimensionError);
    CHECK_THROWS_WITH(ops::optimizer_step_multi(steps),
                      Catch::Contains("momentum_sgd") && Catch::Contains("grad.shape"));
    CHECK(to_doubles(p) == before);  // nothing runs when one step is wrong
    CHECK_THROWS_AS(ops::optimizer_step_multi(std::vector<OptimizerStepArgs>{{.rule = OptimizerRule::kSgd}}),
                    ValueError);
    ops::optimizer_step_multi({});
}

TEST_CASE("multi step: OptimizerStepBatch queues, flushes and checks at once", "[optimizers]") {
    const Array p = make({5}, Dtype::kFloat32, 1), g = make({5}, Dtype::kFloat32, 2), v = make({5}, Dtype::kFloat32, 3);
    const Array p_ref = p.copy(), v_ref = v.copy();
    ops::optimizer_step(momentum_step(p_ref, g, v_ref));
    ops::optimizer_step(momentum_step(p_ref, g, v_ref, 0.2));
    const std::vector<double> before = to_doubles(p);
    std::vector<int> order;
    {
        ops::OptimizerStepBatch batch;
        ops::optimizer_step(momentum_step(p, g, v));
        CHECK(ops::pending_optimizer_steps() == 1);
        CHECK(to_doubles(p) == before);  // queued, not run
        ops::after_optimizer_steps([&] { order.push_back(1); });
        {
            ops::OptimizerStepBatch nested;  // joins the outer batch
            // The same param again: the queue runs first, so the result is the sequential one.
            ops::optimizer_step(momentum_step(p, g, v, 0.2));
            CHECK(order == std::vector<int>{1});
            CHECK(ops::pending_optimizer_steps() == 1);
        }
        CHECK(ops::pending_optimizer_steps() == 1);
        // Errors are raised by the call itself, and nothing is queued.
        CHECK_THROWS_AS(ops::optimizer_step(momentum_step(p, make({4}, Dtype::kFloat32, 1), v)), DimensionError);
        CHECK(ops::pending_optimizer_steps() == 1);
        ops::after_optimizer_steps([&] { order.push_back(2); });
    }
    CHECK(ops::pending_optimizer_steps() == 0);
    CHECK(order == std::vector<int>{1, 2});
    CHECK(to_doubles(p) == to_doubles(p_ref));
    CHECK(to_doubles(v) == to_doubles(v_ref));
    // Without a batch, callbacks run at once and steps are not queued.
    ops::after_optimizer_steps([&] { order.push_back(3); });
    CHECK(order.back() == 3);
}

TEST_CASE("multi step: a shared grad does not flush, a grad written by a queued step does", "[optimizers]") {
    const Array g = make({4}, Dtype::kFloat32, 1);
    const Array p1 = make({4}, Dtype::kFloat32, 2), v1 = make({4}, Dtype::kFloat32, 3);
    const Array p2 = make({4}, Dtype::kFloat32, 4), v2 = make({4}, Dtype::kFloat32, 5);
    const Array r1 = p1.copy(), rv1 = v1.copy(), r2 = p2.copy(), rv2 = v2.copy();
    ops::optimizer_step(momentum_step(r1, g, rv1));
    ops::optimizer_step(momentum_step(r2, g, rv2));
    ops::optimizer_step(momentum_step(r2, r1, rv2));
    {
        ops::OptimizerStepBatch batch;
        ops::optimizer_step(momentum_step(p1, g, v1));
        ops::optimizer_step(momentum_step(p2, g, v2));
        CHECK(ops::pending_optimizer_steps() == 2);      // g is only read
        ops::optimizer_step(momentum_step(p2, p1, v2));  // reads p1, written by a queued step
        CHECK(ops::pending_optimizer_steps() == 1);
    }
    CHECK(to_doubles(p1) == to_doubles(r1));
    CHECK(to_doubles(p2) == to_doubles(r2));
    CHECK(to_doubles(v2) == to_doubles(rv2));
}

TEST_CASE("multi step: a batch left by an exception still runs its queue", "[optimizers]") {
    const Array p = make({5}, Dtype::kFloat64, 1), g = make({5}, Dtype::kFloat64, 2), v = make({5}, Dtype::kFloat64, 3);
    const Array p_ref = p.copy(), v_ref = v.copy();
    ops::optimizer_step(momentum_step(p_ref, g, v_ref));
    try {
        ops::OptimizerStepBatch batch;
        ops::optimizer_step(momentum_step(p, g, v));
        throw std::runtime_error("boom");
    } catch (const std::runtime_error&) {  // NOLINT(bugprone-empty-catch)
    }
    CHECK(ops::pending_optimizer_steps() == 0);
    CHECK(to_doubles(p) == to_doubles(p_ref));
}

}  // namespace
}  // namespace rensa::testing
