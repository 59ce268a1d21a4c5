// Batched optimizer updates (Note [Batched fused updates] in core/ops/fused_update.h):
// GradientMethod::update queues every parameter's update and runs one fused_update_multi;
// the results must be bit-identical to updating the parameters one by one, and reading a
// queued array runs the queue first without any call by hand.

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
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/fused_update.h"
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
        CHECK(ops::pending_fused_updates() == 0);
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
        optimizers::SGDRule sgd;
        sgd.hyperparam().set("lr", 0.5);
        ops::fused_update(sgd.update_args(param, grad));
        log_->push_back(ops::pending_fused_updates());
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
    CHECK(ops::pending_fused_updates() == 0);
    const std::vector<double> after = to_doubles(link->a.array());
    for (size_t i = 0; i < w.size(); ++i) CHECK(after[i] == Approx(w[i] - 0.5 * g[i]));
}

FusedUpdateArgs momentum_step(const Array& p, const Array& g, const Array& v, double lr = 0.1) {
    optimizers::MomentumSGDRule rule;
    rule.hyperparam().set("lr", lr);
    rule.hyperparam().set("momentum", 0.9);
    rule.state["v"] = v;
    return rule.update_args(p, g);
}

// Adam's (or AMSGrad's) update with the given states at t = 1.
FusedUpdateArgs adam_step(const Array& p, const Array& g, const std::vector<Array>& states, bool amsgrad) {
    optimizers::AdamRule rule;
    rule.hyperparam().set("alpha", 0.01);
    rule.hyperparam().set("eps", 1e-3);
    rule.hyperparam().set("beta2", 0.99);
    rule.hyperparam().set("amsgrad", amsgrad ? 1.0 : 0.0);
    rule.t = 1;
    rule.state["m"] = states[0];
    rule.state["v"] = states[1];
    if (amsgrad) rule.state["vhat"] = states[2];
    return rule.update_args(p, g);
}

TEST_CASE("multi step: fused_update_multi matches fused_update in every layout", "[optimizers]") {
    for (const Layout layout : kAllLayouts) {
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            INFO(layout_name(layout) << " " << dtype_name(dtype));
            std::vector<FusedUpdateArgs> multi, single;
            for (int i = 0; i < 3; ++i) {
                const Shape shape{3, 4 + i};
                const double seed = 100.0 + 10 * i;
                const std::vector<Array> states = {make(shape, dtype, seed + 2, layout),
                                                   ops::abs(make(shape, dtype, seed + 3, layout)),
                                                   ops::abs(make(shape, dtype, seed + 4, layout))};
                multi.push_back(
                    adam_step(make(shape, dtype, seed, layout), make(shape, dtype, seed + 1, layout), states, i == 1));
                FusedUpdateArgs s = multi.back();
                s.param = s.param.copy();
                for (Array& state : s.states) {
                    if (state.defined()) state = state.copy();
                }
                single.push_back(s);
            }
            multi.push_back(momentum_step(make({0}, dtype, 1), make({0}, dtype, 2), make({0}, dtype, 3)));
            ops::fused_update_multi(multi);
            for (int i = 0; i < 3; ++i) ops::fused_update(single[static_cast<size_t>(i)]);
            for (size_t i = 0; i < 3; ++i) {
                CHECK(to_doubles(multi[i].param) == to_doubles(single[i].param));
                for (int k = 0; k < multi[i].program->n_states(); ++k) {
                    CHECK(to_doubles(multi[i].states[static_cast<size_t>(k)]) ==
                          to_doubles(single[i].states[static_cast<size_t>(k)]));
                }
            }
        }
    }
}

TEST_CASE("multi step: fused_update_multi checks every update like fused_update", "[optimizers]") {
    const Array p = make({3}, Dtype::kFloat32, 1);
    const Array v = make({3}, Dtype::kFloat32, 2);
    const std::vector<FusedUpdateArgs> steps = {momentum_step(p, make({3}, Dtype::kFloat32, 3), v),
                                                momentum_step(p.copy(), make({4}, Dtype::kFloat32, 3), v.copy())};
    const std::vector<double> before = to_doubles(p);
    CHECK_THROWS_AS(ops::fused_update_multi(steps), DimensionError);
    CHECK_THROWS_WITH(ops::fused_update_multi(steps), Catch::Contains("momentum_sgd") && Catch::Contains("grad.shape"));
    CHECK(to_doubles(p) == before);  // nothing runs when one step is wrong
    CHECK_THROWS_AS(ops::fused_update_multi(std::vector<FusedUpdateArgs>{FusedUpdateArgs{}}), ValueError);
    ops::fused_update_multi({});
}

TEST_CASE("multi step: FusedUpdateBatch queues, runs and checks at once", "[optimizers]") {
    const Array p = make({5}, Dtype::kFloat32, 1), g = make({5}, Dtype::kFloat32, 2), v = make({5}, Dtype::kFloat32, 3);
    const Array p_ref = p.copy(), v_ref = v.copy();
    ops::fused_update(momentum_step(p_ref, g, v_ref));
    ops::fused_update(momentum_step(p_ref, g, v_ref, 0.2));
    const std::vector<double> before = to_doubles(p);
    std::vector<int> order;
    {
        ops::FusedUpdateBatch batch;
        ops::fused_update(momentum_step(p, g, v));
        CHECK(ops::pending_fused_updates() == 1);
        CHECK(ops::pending_fused_updates() == 1);
        ops::after_fused_updates([&] { order.push_back(1); });
        {
            ops::FusedUpdateBatch nested;  // joins the outer batch
            // The same param again: the queue runs first, so the result is the sequential one.
            ops::fused_update(momentum_step(p, g, v, 0.2));
            CHECK(order == std::vector<int>{1});
            CHECK(ops::pending_fused_updates() == 1);
        }
        CHECK(ops::pending_fused_updates() == 1);
        // Errors are raised by the call itself, and nothing is queued.
        CHECK_THROWS_AS(ops::fused_update(momentum_step(p, make({4}, Dtype::kFloat32, 1), v)), DimensionError);
        CHECK(ops::pending_fused_updates() == 1);
        ops::after_fused_updates([&] { order.push_back(2); });
    }
    CHECK(ops::pending_fused_updates() == 0);
    CHECK(order == std::vector<int>{1, 2});
    CHECK(to_doubles(p) == to_doubles(p_ref));
    CHECK(to_doubles(v) == to_doubles(v_ref));
    // Without a batch, callbacks run at once and steps are not queued.
    ops::after_fused_updates([&] { order.push_back(3); });
    CHECK(order.back() == 3);
}

TEST_CASE("multi step: a shared grad does not flush, a grad written by a queued step does", "[optimizers]") {
    const Array g = make({4}, Dtype::kFloat32, 1);
    const Array p1 = make({4}, Dtype::kFloat32, 2), v1 = make({4}, Dtype::kFloat32, 3);
    const Array p2 = make({4}, Dtype::kFloat32, 4), v2 = make({4}, Dtype::kFloat32, 5);
    const Array r1 = p1.copy(), rv1 = v1.copy(), r2 = p2.copy(), rv2 = v2.copy();
    ops::fused_update(momentum_step(r1, g, rv1));
    ops::fused_update(momentum_step(r2, g, rv2));
    ops::fused_update(momentum_step(r2, r1, rv2));
    {
        ops::FusedUpdateBatch batch;
        ops::fused_update(momentum_step(p1, g, v1));
        ops::fused_update(momentum_step(p2, g, v2));
        CHECK(ops::pending_fused_updates() == 2);      // g is only read
        ops::fused_update(momentum_step(p2, p1, v2));  // reads p1, written by a queued step
        CHECK(ops::pending_fused_updates() == 1);
    }
    CHECK(to_doubles(p1) == to_doubles(r1));
    CHECK(to_doubles(p2) == to_doubles(r2));
    CHECK(to_doubles(v2) == to_doubles(rv2));
}

TEST_CASE("multi step: a batch left by an exception still runs its queue", "[optimizers]") {
    const Array p = make({5}, Dtype::kFloat64, 1), g = make({5}, Dtype::kFloat64, 2), v = make({5}, Dtype::kFloat64, 3);
    const Array p_ref = p.copy(), v_ref = v.copy();
    ops::fused_update(momentum_step(p_ref, g, v_ref));
    try {
        ops::FusedUpdateBatch batch;
        ops::fused_update(momentum_step(p, g, v));
        throw std::runtime_error("boom");
    } catch (const std::runtime_error&) {  // NOLINT(bugprone-empty-catch)
    }
    CHECK(ops::pending_fused_updates() == 0);
    CHECK(to_doubles(p) == to_doubles(p_ref));
}

TEST_CASE("multi step: reading a queued param or state runs the queue first", "[optimizers]") {
    const Array g = make({6}, Dtype::kFloat32, 1);
    const Array p = make({6}, Dtype::kFloat32, 2), v = make({6}, Dtype::kFloat32, 3);
    const Array p_ref = p.copy(), v_ref = v.copy();
    ops::fused_update(momentum_step(p_ref, g, v_ref));
    {
        ops::FusedUpdateBatch batch;
        ops::fused_update(momentum_step(p, g, v));
        CHECK(ops::pending_fused_updates() == 1);
        CHECK(to_doubles(g).size() == 6);  // the grad is only read: reading it keeps the queue
        CHECK(ops::pending_fused_updates() == 1);
        CHECK(to_doubles(p) == to_doubles(p_ref));  // host read of the param
        CHECK(ops::pending_fused_updates() == 0);
        ops::fused_update(momentum_step(p, g, v));
        const Array doubled = ops::multiply(v, Scalar(2.0));  // an op taking the state
        CHECK(ops::pending_fused_updates() == 0);
        ops::fused_update(momentum_step(p_ref, g, v_ref));
        CHECK(to_doubles(doubled) == to_doubles(ops::multiply(v_ref, Scalar(2.0))));
    }
    CHECK(to_doubles(p) == to_doubles(p_ref));
}

TEST_CASE("multi step: writing a queued grad runs the queue first", "[optimizers]") {
    const Array g = make({6}, Dtype::kFloat64, 1);
    const Array p = make({6}, Dtype::kFloat64, 2), v = make({6}, Dtype::kFloat64, 3);
    const Array p_ref = p.copy(), v_ref = v.copy();
    ops::fused_update(momentum_step(p_ref, g.copy(), v_ref));
    {
        ops::FusedUpdateBatch batch;
        ops::fused_update(momentum_step(p, g, v));
        g.fill(Scalar(0.0));  // the queued update must see the grad it was given
        CHECK(ops::pending_fused_updates() == 0);
    }
    CHECK(to_doubles(p) == to_doubles(p_ref));
    CHECK(to_doubles(v) == to_doubles(v_ref));
}

TEST_CASE("multi step: an array written by an after callback runs the queue when read", "[optimizers]") {
    const Array g = make({5}, Dtype::kFloat32, 1);
    const Array p = make({5}, Dtype::kFloat32, 2), v = make({5}, Dtype::kFloat32, 3);
    const Array copy_target = ops::zeros({5}, Dtype::kFloat16);
    {
        ops::FusedUpdateBatch batch;
        ops::fused_update(momentum_step(p, g, v));
        ops::after_fused_updates([p, copy_target] { copy_target.assign(p); }, copy_target);
        CHECK(ops::pending_fused_updates() == 1);
        const std::vector<double> seen = to_doubles(copy_target);  // runs the update, then the copy
        CHECK(ops::pending_fused_updates() == 0);
        CHECK(seen == to_doubles(p.astype(Dtype::kFloat16)));
    }
}

// Records another parameter's values at each post hook.
class ReadOtherHook : public optimizers::OptimizerHook {
public:
    ReadOtherHook(const links::Parameter* other, std::shared_ptr<std::vector<std::vector<double>>> log)
        : other_{other}, log_{std::move(log)} {}
    std::string name() const override { return "ReadOther"; }
    optimizers::HookTiming timing() const override { return optimizers::HookTiming::kPost; }
    void operator()(optimizers::UpdateRule&, const links::Parameter&) override {
        log_->push_back(to_doubles(other_->array()));
    }

private:
    const links::Parameter* other_;
    std::shared_ptr<std::vector<std::vector<double>>> log_;
};

TEST_CASE("multi step: a float16 parameter with an fp32 update reads updated within the step", "[optimizers]") {
    // Every post hook reads parameter c (float16, updated through its float32 master): from
    // c's own update on, it must show the new values, as when updating one by one.
    std::vector<std::vector<double>> logs[2];
    for (int which = 0; which < 2; ++which) {
        auto link = std::make_shared<MixedLink>(Dtype::kFloat16);
        optimizers::MomentumSGD optimizer{{.lr = 0.1}};
        optimizer.use_fp32_update(true);
        optimizer.setup(link);
        set_grads(*link, 0);
        auto log = std::make_shared<std::vector<std::vector<double>>>();
        for (const links::Parameter& p : link->params()) {
            auto* rule = dynamic_cast<optimizers::UpdateRule*>(p.update_rule());
            rule->add_hook(std::make_shared<ReadOtherHook>(&link->c, log));
        }
        if (which == 0) {
            optimizer.update();
        } else {
            update_one_by_one(optimizer, *link);
        }
        logs[which] = *log;
    }
    REQUIRE(logs[0].size() == 5);
    CHECK(logs[0] == logs[1]);
    CHECK(logs[0].front() != logs[0].back());
}

}  // namespace
}  // namespace rensa::testing
