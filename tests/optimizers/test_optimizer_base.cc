// Optimizer, GradientMethod, UpdateRule and Hyperparameter with a test-local rule
// (heavy-ball momentum: v = momentum * v + grad; param -= lr * v), so the base behaviours
// are tested apart from the concrete optimizers.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/half.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "links/chain.h"
#include "optimizers/optimizer.h"
#include "serializers/npz.h"
#include "tests/testing/testing.h"

namespace {

using namespace rensa;
using optimizers::GradientMethod;
using optimizers::HookTiming;
using optimizers::Hyperparameter;
using optimizers::OptimizerHook;
using optimizers::UpdateRule;
using rensa::testing::to_doubles;

class MomentumRule : public UpdateRule {
public:
    using UpdateRule::UpdateRule;
    int init_calls = 0;
    Dtype init_dtype = Dtype::kBool;

protected:
    void init_state(const Array& param) override {
        ++init_calls;
        init_dtype = param.dtype();
        state["v"] = ops::zeros_like(param);
    }
    void update_core(const Array& param, const Array& grad) override {
        const Array& v = state.at("v");
        ops::multiply_inplace(v, Scalar(hyperparam().get("momentum")));
        ops::add_inplace(v, grad);
        ops::add_inplace(param, ops::multiply(v, Scalar(-hyperparam().get("lr"))));
    }
};

class MomentumMethod : public GradientMethod {
public:
    explicit MomentumMethod(double lr = 0.1, double momentum = 0.5) {
        hyperparam().set("lr", lr);
        hyperparam().set("momentum", momentum);
    }

protected:
    std::shared_ptr<UpdateRule> create_update_rule() override {
        return std::make_shared<MomentumRule>(hyperparam_ptr());
    }
};

// Two parameters a (2,) and b (3,), the second optionally lazy.
class TwoParams : public links::Link {
public:
    links::Parameter a, b;
    explicit TwoParams(Dtype dtype = Dtype::kFloat32, bool lazy_b = false) {
        register_param("a", &TwoParams::a,
                       links::Parameter(Array::from_vector<double>({1.0, -2.0}, {2}).astype(dtype)));
        register_param("b", &TwoParams::b,
                       lazy_b ? links::Parameter(nullptr, std::nullopt, dtype)
                              : links::Parameter(Array::from_vector<double>({0.5, 0.0, 3.0}, {3}).astype(dtype)));
    }
};

std::shared_ptr<links::Chain> make_chain() {
    auto chain = std::make_shared<links::Chain>();
    chain->add_link("l1", std::make_shared<TwoParams>());
    return chain;
}

TwoParams& l1_of(links::Chain& chain) { return static_cast<TwoParams&>(chain["l1"]); }

void set_grads(TwoParams& link, const std::vector<double>& ga, const std::vector<double>& gb) {
    link.a.set_grad(Array::from_vector<double>(ga, {2}).astype(link.a.dtype()));
    link.b.set_grad(Array::from_vector<double>(gb, {3}).astype(link.b.dtype()));
}

void check_close(const Array& actual, const std::vector<double>& expected) {
    rensa::testing::check_allclose(actual, expected, actual.shape(), {1e-6, 1e-6});
}

MomentumRule& rule_of(const links::Parameter& p) { return dynamic_cast<MomentumRule&>(*p.update_rule()); }

// An in-memory serializer backend: the whole SerializerBackend contract in a few lines.
class MemoryBackend : public serializers::SerializerBackend {
public:
    MemoryBackend(std::map<std::string, Array>* store, bool loading) : store_{store}, loading_{loading} {}
    bool is_loading() const override { return loading_; }
    void save(const std::string& key, const Array& value) override {
        (*store_)[key] = value.defined() ? value.copy() : Array();
    }
    std::optional<Array> load(const std::string& key, Dtype, const std::optional<Shape>& shape) override {
        const auto it = store_->find(key);
        RENSA_CHECK(it != store_->end(), KeyError, "memory: no key ", key);
        if (it->second.defined() && shape) {
            RENSA_CHECK(it->second.shape() == *shape, DimensionError, "memory: shape of ", key);
        }
        return it->second.defined() ? it->second.copy() : Array();
    }
    void defer(std::function<void()> assign) override { deferred_.push_back(std::move(assign)); }
    void commit() {
        for (auto& f : deferred_) f();
    }

private:
    std::map<std::string, Array>* store_;
    bool loading_;
    std::vector<std::function<void()>> deferred_;
};

std::map<std::string, Array> save_to_memory(optimizers::Optimizer& optimizer) {
    std::map<std::string, Array> store;
    optimizer.serialize(serializers::Serializer{std::make_shared<MemoryBackend>(&store, false)});
    return store;
}

void load_from_memory(std::map<std::string, Array>& store, optimizers::Optimizer& optimizer) {
    auto backend = std::make_shared<MemoryBackend>(&store, true);
    optimizer.serialize(serializers::Serializer{backend});
    backend->commit();
}

TEST_CASE("optimizer base: hyperparameter falls back to its parent", "[optimizers]") {
    auto parent = std::make_shared<Hyperparameter>();
    parent->set("lr", 0.1);
    parent->set("momentum", 0.9);
    Hyperparameter child(parent);
    child.set("lr", 0.5);
    CHECK(child.get("lr") == 0.5);
    CHECK(child.get("momentum") == 0.9);
    parent->set("momentum", 0.8);
    CHECK(child.get("momentum") == 0.8);
    CHECK(child.has("momentum"));
    CHECK_FALSE(child.has("eps"));
    const std::map<std::string, double> all = child.get_all();
    CHECK(all.size() == 2);
    CHECK(all.at("lr") == 0.5);
    CHECK(parent->get("lr") == 0.1);
    CHECK_THROWS_AS(child.get("eps"), KeyError);
    CHECK_THROWS_WITH(child.get("eps"), Catch::Matchers::Contains("eps"));
}

TEST_CASE("optimizer base: setup installs a rule on every parameter", "[optimizers]") {
    auto link = std::make_shared<TwoParams>(Dtype::kFloat32, /*lazy_b=*/true);
    MomentumMethod optimizer(0.1, 0.0);
    optimizer.t = 5;
    optimizer.epoch = 2;
    optimizer.setup(link);
    CHECK(optimizer.t == 0);
    CHECK(optimizer.epoch == 0);
    CHECK(&optimizer.target() == link.get());
    REQUIRE(link->b.update_rule() != nullptr);  // lazy, still gets its rule
    CHECK(rule_of(link->a).hyperparam().parent() == optimizer.hyperparam_ptr());
    CHECK(link->a.update_rule() != link->b.update_rule());

    // The lazy parameter initialised later is updated by its rule.
    link->b.initialize({3});
    link->b.array().fill(1.0);
    set_grads(*link, {1.0, 1.0}, {2.0, 4.0, 6.0});
    optimizer.update();
    check_close(link->b.array(), {0.8, 0.6, 0.4});
    CHECK(optimizer.t == 1);
    CHECK(rule_of(link->b).t == 1);

    MomentumMethod fresh;
    CHECK_THROWS_AS(fresh.target(), ValueError);
    CHECK_THROWS_AS(fresh.setup(nullptr), ValueError);
}

TEST_CASE("optimizer base: optimizer hyperparameters reach the rules unless overridden", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(0.1, 0.0);
    optimizer.setup(link);
    optimizer.hyperparam().set("lr", 0.5);         // after setup: seen by both rules
    rule_of(link->b).hyperparam().set("lr", 1.0);  // b's own value wins
    set_grads(*link, {1.0, 2.0}, {1.0, 1.0, 1.0});
    optimizer.update();
    CHECK(to_doubles(link->a.array()) == std::vector<double>{0.5, -3.0});
    CHECK(to_doubles(link->b.array()) == std::vector<double>{-0.5, -1.0, 2.0});
    CHECK(rule_of(link->a).hyperparam().get("lr") == 0.5);
}

TEST_CASE("optimizer base: update creates state once and counts steps", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(0.1, 0.5);
    optimizer.setup(link);
    set_grads(*link, {1.0, 2.0}, {0.0, 0.0, 0.0});
    optimizer.update();  // v = g, a -= 0.1 g
    set_grads(*link, {1.0, 2.0}, {0.0, 0.0, 0.0});
    optimizer.update();  // v = 0.5 g + g
    const std::vector<double> a = to_doubles(link->a.array());
    CHECK(a[0] == Approx(1.0 - 0.1 - 0.15));
    CHECK(a[1] == Approx(-2.0 - 0.2 - 0.3));
    CHECK(rule_of(link->a).init_calls == 1);
    CHECK(rule_of(link->a).t == 2);
    CHECK(optimizer.t == 2);

    // A cleared grad becomes zeros (Chainer's reallocate_cleared_grads): momentum still moves a.
    link->cleargrads();
    optimizer.update();
    CHECK(to_doubles(link->a.array())[0] == Approx(a[0] - 0.1 * 0.75));
    REQUIRE(link->a.grad().defined());
    CHECK(to_doubles(link->a.grad()) == std::vector<double>{0.0, 0.0});
}

TEST_CASE("optimizer base: disabled parameters are not updated", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(0.1, 0.0);
    optimizer.setup(link);
    link->a.disable_update();
    set_grads(*link, {1.0, 1.0}, {1.0, 1.0, 1.0});
    optimizer.update();
    CHECK(to_doubles(link->a.array()) == std::vector<double>{1.0, -2.0});
    CHECK(rule_of(link->a).t == 0);
    CHECK(rule_of(link->b).t == 1);
    link->a.enable_update();
    optimizer.update();
    check_close(link->a.array(), {0.9, -2.1});
}

// Records each call: its label and the value of a[0] at that moment.
class RecordingHook : public OptimizerHook {
public:
    RecordingHook(std::string label, std::vector<std::string>* log, bool per_param, HookTiming timing)
        : label_{std::move(label)}, log_{log}, per_param_{per_param}, timing_{timing} {}
    std::string name() const override { return label_; }
    HookTiming timing() const override { return timing_; }
    bool call_for_each_param() const override { return per_param_; }
    void operator()(optimizers::Optimizer& optimizer) override {
        if (per_param_) return OptimizerHook::operator()(optimizer);
        const auto& link = static_cast<TwoParams&>(optimizer.target());
        log_->push_back(label_ + ":" + std::to_string(to_doubles(link.a.array())[0]));
    }
    void operator()(UpdateRule& rule, const links::Parameter& param) override {
        log_->push_back(label_ + ":" + std::to_string(param.size()) + ":t" + std::to_string(rule.t));
    }

private:
    std::string label_;
    std::vector<std::string>* log_;
    bool per_param_;
    HookTiming timing_;
};

TEST_CASE("optimizer base: optimizer hooks run in order around the update", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(1.0, 0.0);
    optimizer.setup(link);
    std::vector<std::string> log;
    optimizer.add_hook(std::make_shared<RecordingHook>("post", &log, false, HookTiming::kPost));
    optimizer.add_hook(std::make_shared<RecordingHook>("pre", &log, false, HookTiming::kPre));
    optimizer.add_hook(std::make_shared<RecordingHook>("each", &log, true, HookTiming::kPre));
    optimizer.add_hook(std::make_shared<RecordingHook>("x", &log, false, HookTiming::kPre), "late", HookTiming::kPost);
    set_grads(*link, {1.0, 1.0}, {1.0, 1.0, 1.0});
    optimizer.update();
    const std::vector<std::string> expected{"pre:1.000000", "each:2:t0", "each:3:t0", "post:0.000000", "x:0.000000"};
    CHECK(log == expected);

    CHECK_THROWS_AS(optimizer.add_hook(std::make_shared<RecordingHook>("pre", &log, false, HookTiming::kPost)),
                    ValueError);
    CHECK_THROWS_AS(optimizer.add_hook(nullptr), ValueError);
    optimizer.remove_hook("pre");
    optimizer.remove_hook("late");
    CHECK_THROWS_AS(optimizer.remove_hook("pre"), KeyError);
    log.clear();
    optimizer.update();
    CHECK(log == std::vector<std::string>{"each:2:t1", "each:3:t1", "post:-1.000000"});
    CHECK_THROWS_AS(optimizer.call_hooks(HookTiming::kAuto), ValueError);
}

TEST_CASE("optimizer base: rule hooks run before and after update_core", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(1.0, 0.0);
    optimizer.setup(link);
    std::vector<std::string> log;
    UpdateRule& rule = rule_of(link->a);
    rule.add_hook(std::make_shared<RecordingHook>("after", &log, true, HookTiming::kPost));
    rule.add_hook(std::make_shared<RecordingHook>("before", &log, true, HookTiming::kPre));
    CHECK_THROWS_AS(rule.add_hook(std::make_shared<RecordingHook>("before", &log, true, HookTiming::kPre)), ValueError);
    set_grads(*link, {1.0, 1.0}, {1.0, 1.0, 1.0});
    optimizer.update();
    // The rule's t counts before its hooks run (Chainer increments t first).
    CHECK(log == std::vector<std::string>{"before:2:t1", "after:2:t1"});
    rule.remove_hook("after");
    CHECK_THROWS_AS(rule.remove_hook("after"), KeyError);
}

TEST_CASE("optimizer base: update with a loss function clears grads and backprops", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(0.1, 0.0);
    optimizer.setup(link);
    set_grads(*link, {100.0, 100.0}, {100.0, 100.0, 100.0});  // stale: must not be accumulated
    const Variable x(Array::from_vector<float>({3.0f, 4.0f}, {2}), false);
    auto lossfun = [&](const Variable& input) { return sum(link->a * input) + sum(link->b * link->b); };
    optimizer.update(lossfun, x);  // da = x, db = 2b
    const std::vector<double> a = to_doubles(link->a.array());
    CHECK(a[0] == Approx(1.0 - 0.3));
    CHECK(a[1] == Approx(-2.0 - 0.4));
    const std::vector<double> b = to_doubles(link->b.array());
    CHECK(b[0] == Approx(0.5 - 0.1));
    CHECK(b[2] == Approx(3.0 - 0.6));
    CHECK(optimizer.t == 1);
}

TEST_CASE("optimizer base: static loss scaling scales backward and unscales the update", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(0.1, 0.0);
    optimizer.setup(link);
    optimizer.loss_scaling(1000, 8.0);
    REQUIRE(optimizer.loss_scale() == 8.0);
    const Variable x(Array::from_vector<float>({3.0f, 4.0f}, {2}), false);
    optimizer.update([&] { return sum(link->a * x); });
    const std::vector<double> a = to_doubles(link->a.array());
    CHECK(a[0] == Approx(1.0 - 0.3));
    CHECK(a[1] == Approx(-2.0 - 0.4));
    CHECK(to_doubles(link->a.grad()) == std::vector<double>{3.0, 4.0});  // left unscaled, as Chainer
    CHECK(optimizer.loss_scale() == 8.0);
    CHECK_THROWS_AS(optimizer.loss_scaling(1000, 0.0), ValueError);
    CHECK_THROWS_AS(optimizer.loss_scaling(0), ValueError);
}

TEST_CASE("optimizer base: dynamic loss scaling skips overflowing steps", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(0.1, 0.0);
    optimizer.setup(link);
    optimizer.loss_scaling(/*interval=*/2);
    CHECK(optimizer.loss_scale() == 1.0);
    const double inf = std::numeric_limits<double>::infinity();
    // Before any overflow every clean step doubles the scale.
    set_grads(*link, {0.0, 0.0}, {0.0, 0.0, 0.0});
    optimizer.update();
    optimizer.update();
    CHECK(optimizer.loss_scale() == 4.0);
    // An overflow: no parameter changes, the scale halves, the optimizer still counts t.
    set_grads(*link, {1.0, inf}, {1.0, 1.0, 1.0});
    CHECK(optimizer.grads_have_overflow());
    optimizer.update();
    CHECK(optimizer.loss_scale() == 2.0);
    CHECK(to_doubles(link->a.array()) == std::vector<double>{1.0, -2.0});
    CHECK(to_doubles(link->b.array()) == std::vector<double>{0.5, 0.0, 3.0});
    CHECK(rule_of(link->b).t == 2);
    CHECK(optimizer.t == 3);
    set_grads(*link, {std::nan(""), 0.0}, {1.0, 1.0, 1.0});
    optimizer.update();
    optimizer.update();  // NaN grads stay: halved twice, not below 1
    CHECK(optimizer.loss_scale() == 1.0);
    // After an overflow, `interval` clean steps double the scale (x 2^(1/interval) each).
    set_grads(*link, {0.0, 0.0}, {0.0, 0.0, 0.0});
    CHECK_FALSE(optimizer.grads_have_overflow());
    optimizer.update();
    CHECK(*optimizer.loss_scale() == Approx(std::sqrt(2.0)));
    optimizer.update();
    CHECK(*optimizer.loss_scale() == Approx(2.0));
    CHECK(rule_of(link->b).t == 4);
}

TEST_CASE("optimizer base: dynamic loss scale stays at most 65504", "[optimizers]") {
    auto link = std::make_shared<TwoParams>();
    MomentumMethod optimizer(0.1, 0.0);
    optimizer.setup(link);
    optimizer.loss_scaling();
    set_grads(*link, {0.0, 0.0}, {0.0, 0.0, 0.0});
    for (int i = 0; i < 20; ++i) optimizer.update();
    CHECK(optimizer.loss_scale() == 65504.0);
}

TEST_CASE("optimizer base: use_fp32_update keeps a float32 master copy", "[optimizers]") {
    // 1 - 1e-4 is 1 in float16 (spacing 2^-11 below 1): only a float32 master accumulates.
    for (const bool fp32 : {false, true}) {
        auto link = std::make_shared<TwoParams>(Dtype::kFloat16);
        MomentumMethod optimizer(1.0, 0.0);
        optimizer.use_fp32_update(fp32);
        optimizer.setup(link);
        for (int i = 0; i < 10; ++i) {
            set_grads(*link, {1e-4, 0.0}, {0.0, 0.0, 0.0});
            optimizer.update();
        }
        CHECK(link->a.dtype() == Dtype::kFloat16);
        const double a0 = to_doubles(link->a.array())[0];
        CHECK(a0 == (fp32 ? static_cast<double>(static_cast<float>(Half(0.999f))) : 1.0));
        CHECK(rule_of(link->a).init_dtype == (fp32 ? Dtype::kFloat32 : Dtype::kFloat16));
        CHECK(rule_of(link->a).state.at("v").dtype() == (fp32 ? Dtype::kFloat32 : Dtype::kFloat16));
        CHECK(link->a.grad().dtype() == Dtype::kFloat16);
    }
}

TEST_CASE("optimizer base: use_fp32_update after setup reaches the rules", "[optimizers]") {
    auto link = std::make_shared<TwoParams>(Dtype::kFloat16);
    MomentumMethod optimizer(1.0, 0.0);
    optimizer.setup(link);
    optimizer.use_fp32_update();
    CHECK(rule_of(link->a).use_fp32_update);
    optimizer.use_fp32_update(false);
    CHECK_FALSE(rule_of(link->b).use_fp32_update);
}

TEST_CASE("optimizer base: serialize writes t, epoch and each rule under its path", "[optimizers]") {
    auto chain = make_chain();
    MomentumMethod optimizer;
    optimizer.setup(chain);
    set_grads(l1_of(*chain), {1.0, 2.0}, {3.0, 4.0, 5.0});
    optimizer.update();
    optimizer.new_epoch();
    const std::map<std::string, Array> store = save_to_memory(optimizer);
    std::vector<std::string> keys;
    for (const auto& entry : store) keys.push_back(entry.first);
    CHECK(keys == std::vector<std::string>{"epoch", "l1/a/t", "l1/a/v", "l1/b/t", "l1/b/v", "t"});
    CHECK(store.at("t").item<int64_t>() == 1);
    CHECK(store.at("epoch").item<int64_t>() == 1);
    CHECK(to_doubles(store.at("l1/b/v")) == std::vector<double>{3.0, 4.0, 5.0});

    // Before the first update a rule has no state: only its t is written.
    auto fresh = make_chain();
    MomentumMethod unused;
    unused.setup(fresh);
    const std::map<std::string, Array> bare = save_to_memory(unused);
    CHECK(bare.count("l1/a/t") == 1);
    CHECK(bare.count("l1/a/v") == 0);
}

// Runs `steps` updates on fixed grads that depend on the step and the parameters.
void train(links::Chain& chain, optimizers::Optimizer& optimizer, int steps) {
    TwoParams& l1 = l1_of(chain);
    for (int i = 0; i < steps; ++i) {
        l1.a.set_grad(ops::add(ops::multiply(l1.a.array(), 0.3), Scalar(0.1 * i)));
        l1.b.set_grad(ops::sin(l1.b.array()));
        optimizer.update();
    }
}

TEST_CASE("optimizer base: a loaded optimizer continues bit-identically", "[optimizers]") {
    auto chain = make_chain();
    MomentumMethod optimizer(0.05, 0.9);
    optimizer.setup(chain);
    train(*chain, optimizer, 3);

    std::map<std::string, Array> store = save_to_memory(optimizer);
    auto resumed = make_chain();
    resumed->copyparams(*chain);
    MomentumMethod resumed_optimizer(0.05, 0.9);
    resumed_optimizer.setup(resumed);
    load_from_memory(store, resumed_optimizer);
    CHECK(resumed_optimizer.t == 3);
    CHECK(rule_of(l1_of(*resumed).a).t == 3);
    REQUIRE(rule_of(l1_of(*resumed).a).state.count("v") == 1);
    CHECK(to_doubles(rule_of(l1_of(*resumed).a).state.at("v")) == to_doubles(store.at("l1/a/v")));

    train(*chain, optimizer, 4);
    train(*resumed, resumed_optimizer, 4);
    CHECK(to_doubles(l1_of(*resumed).a.array()) == to_doubles(l1_of(*chain).a.array()));
    CHECK(to_doubles(l1_of(*resumed).b.array()) == to_doubles(l1_of(*chain).b.array()));

    // Loading again into existing state loads in place (the arrays keep their identity).
    const Array v = rule_of(l1_of(*resumed).b).state.at("v");
    load_from_memory(store, resumed_optimizer);
    CHECK(rule_of(l1_of(*resumed).b).state.at("v").raw_data() == v.raw_data());
    CHECK(to_doubles(v) == to_doubles(store.at("l1/b/v")));
    CHECK(resumed_optimizer.t == 3);
}

TEST_CASE("optimizer base: NPZ round trip with Chainer's keys", "[optimizers]") {
    auto chain = make_chain();
    MomentumMethod optimizer(0.05, 0.9);
    optimizer.setup(chain);
    train(*chain, optimizer, 2);
    const std::string path = (std::filesystem::temp_directory_path() / "rensa_optbase_roundtrip.npz").string();
    serializers::save_npz(path, optimizer);

    auto resumed = make_chain();
    resumed->copyparams(*chain);
    MomentumMethod resumed_optimizer(0.05, 0.9);
    resumed_optimizer.setup(resumed);
    serializers::load_npz(path, resumed_optimizer);
    train(*chain, optimizer, 2);
    train(*resumed, resumed_optimizer, 2);
    CHECK(to_doubles(l1_of(*resumed).b.array()) == to_doubles(l1_of(*chain).b.array()));

    // A missing state key fails the whole load and changes nothing.
    MomentumMethod other(0.05, 0.9);
    auto bigger = std::make_shared<links::Chain>();
    bigger->add_link("l1", std::make_shared<TwoParams>());
    bigger->add_link("l2", std::make_shared<TwoParams>());
    other.setup(bigger);
    CHECK_THROWS_AS(serializers::load_npz(path, other), KeyError);
    CHECK(other.t == 0);
    CHECK(rule_of(l1_of(*bigger).a).t == 0);
    CHECK(rule_of(l1_of(*bigger).a).state.empty());
    std::remove(path.c_str());
}

}  // namespace
