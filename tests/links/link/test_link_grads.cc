// Gradients, parameter copies, update switches, counts, lazy initialisation and devices.
#include <catch2/catch.hpp>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/math.h"
#include "tests/testing/testing.h"
#include "toy_links.h"

namespace rensa::links {
namespace {

using testing::Net;
using testing::Toy;

Variable input() { return Variable(rensa::testing::make_array({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4}, Dtype::kFloat32)); }

TEST_CASE("backward fills the parameters' grads and cleargrads clears them", "[links][link]") {
    Net net;
    auto y = net(input());
    functions::sum(y).backward();
    for (const Parameter& p : net.params()) CHECK(p.grad().defined());
    net.cleargrads();
    for (const Parameter& p : net.params()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("zerograds sets zero grads on initialised parameters", "[links][link]") {
    Net net;
    net.zerograds();
    CHECK_FALSE(net.l1->W.grad().defined());  // lazy: skipped
    for (const Parameter& p : net.params(false)) {
        REQUIRE(p.grad().defined());
        CHECK(p.grad().to_vector<double>() == std::vector<double>(p.size(), 0.0));
    }
}

TEST_CASE("addgrads adds the other link's grads parameter by parameter", "[links][link]") {
    Toy a(2, 2), b(2, 2);
    b.W.set_grad(ops::full({2, 2}, 1.5, Dtype::kFloat32));
    a.addgrads(b);  // a has no grad: it becomes a copy
    REQUIRE(a.W.grad().defined());
    CHECK(a.W.grad().to_vector<double>() == std::vector<double>(4, 1.5));
    CHECK(a.W.grad().storage() != b.W.grad().storage());
    a.addgrads(b);
    CHECK(a.W.grad().to_vector<double>() == std::vector<double>(4, 3.0));
    CHECK_FALSE(a.b.grad().defined());  // b.b has no grad

    Toy lazy(std::nullopt, 2);
    lazy.addgrads(b);
    CHECK(lazy.W.is_initialized());
    CHECK(lazy.W.grad().to_vector<double>() == std::vector<double>(4, 1.5));

    Toy other(3, 2);
    other.W.set_grad(ops::ones({2, 3}));
    CHECK_THROWS_AS(a.addgrads(other), DimensionError);
    CHECK_THROWS_AS(a.addgrads(Net{}), DimensionError);
}

TEST_CASE("copyparams copies parameter and persistent values in place", "[links][link]") {
    Net src, dst;
    src(input());  // initialises src.l1.W, counts one forward
    src.l2->avg.fill(7.0);
    const Array dst_l2_W = dst.l2->W.array();
    dst.copyparams(src);
    CHECK(dst.l1->W.is_initialized());
    rensa::testing::check_allclose(dst.l1->W.array(), src.l1->W.array());
    rensa::testing::check_allclose(dst.l2->W.array(), src.l2->W.array());
    CHECK(dst.l2->W.array().storage() == dst_l2_W.storage());  // in place
    CHECK(dst.l2->W.array().storage() != src.l2->W.array().storage());
    CHECK(dst.l2->avg.to_vector<double>() == std::vector<double>(2, 7.0));
    CHECK(dst.l2->count == 1);

    Net other;
    other.l2->avg.fill(3.0);
    other.copyparams(src, false);
    CHECK(other.l2->avg.to_vector<double>() == std::vector<double>(2, 3.0));
    CHECK(other.l2->count == 0);
    rensa::testing::check_allclose(other.l2->W.array(), src.l2->W.array());

    Toy small(2, 1);
    CHECK_THROWS_AS(Toy(3, 1).copyparams(small), DimensionError);
    CHECK_THROWS_AS(Chain().add_link("x", std::make_shared<Toy>(1, 1))->copyparams(Net{}), KeyError);
}

TEST_CASE("enable_update and disable_update switch every parameter", "[links][link]") {
    Net net;
    CHECK(net.update_enabled());
    net.blocks->disable_update();
    CHECK_FALSE(net.update_enabled());
    CHECK_FALSE((*net.blocks)[1].param("b").update_enabled());
    CHECK(net.l1->W.update_enabled());
    net.enable_update();
    CHECK(net.update_enabled());
    net.disable_update();
    for (const Parameter& p : net.params()) CHECK_FALSE(p.update_enabled());
}

struct CountingRule : ParameterUpdateRule {
    int calls = 0;
    void update(const Parameter&) override { ++calls; }
    void serialize(const serializers::Serializer&) override {}
};

TEST_CASE("Parameter::update runs the rule unless updates are disabled", "[links][link]") {
    Toy toy(2, 2);
    auto rule = std::make_shared<CountingRule>();
    CHECK(toy.W.update_rule() == nullptr);
    toy.W.update();  // no rule: nothing
    toy.W.set_update_rule(rule);
    CHECK(toy.W.update_rule() == rule.get());
    toy.W.update();
    CHECK(rule->calls == 1);
    toy.disable_update();
    CHECK_FALSE(rule->enabled);
    toy.W.update();
    CHECK(rule->calls == 1);
    toy.enable_update();
    CHECK(rule->enabled);
    toy.W.update();
    CHECK(rule->calls == 2);
    // A rule set on a disabled parameter starts disabled.
    toy.b.disable_update();
    auto rule_b = std::make_shared<CountingRule>();
    toy.b.set_update_rule(rule_b);
    CHECK_FALSE(rule_b->enabled);
}

TEST_CASE("count_params counts initialised elements only", "[links][link]") {
    Net net;
    // blocks: 2 * (9 + 3), l2: 6 + 2, l1.b: 3; l1.W is lazy.
    CHECK(net.count_params() == 24 + 8 + 3);
    net(input());
    CHECK(net.count_params() == 24 + 8 + 3 + 12);
}

TEST_CASE("lazy parameters initialise at the first forward with their initializer", "[links][link]") {
    Toy toy(std::nullopt, 5);
    CHECK_FALSE(toy.W.is_initialized());
    CHECK(toy.W.dtype() == Dtype::kFloat32);
    toy(input());
    REQUIRE(toy.W.is_initialized());
    CHECK(toy.W.shape() == Shape{5, 4});
    CHECK_FALSE(toy.W.grad().defined());
    toy.W.initialize({5, 4});  // same shape: no-op
    CHECK_THROWS_AS(toy.W.initialize({4, 4}), ValueError);
}

TEST_CASE("Parameter with an array aliases it and with an initializer creates one", "[links][link]") {
    const Array a = ops::ones({2, 2});
    Parameter p(a, "w");
    CHECK(p.array().storage() == a.storage());
    CHECK(p.name() == "w");
    CHECK(p.is_initialized());
    Parameter q(initializers::constant(3.0), Shape{3}, Dtype::kFloat64);
    CHECK(q.dtype() == Dtype::kFloat64);
    CHECK(q.array().to_vector<double>() == std::vector<double>(3, 3.0));
    // The initializer's own dtype wins over the dtype argument.
    Parameter r(std::make_shared<initializers::Zero>(Dtype::kFloat64), std::nullopt, Dtype::kFloat32);
    CHECK(r.dtype() == Dtype::kFloat64);
    Parameter none;
    CHECK_FALSE(none.is_initialized());
    CHECK_THROWS_AS(none.update_enabled(), ValueError);
}

TEST_CASE("to_device moves parameters and persistents and lazy parameters remember it", "[links][link]") {
    Net net;
    net.l2->W.set_grad(ops::ones({2, 3}));
    const Array before = net.l2->W.array();
    net.to_device(Device::native());
    CHECK(net.device() == Device::native());
    CHECK(net.l1->device() == Device::native());
    CHECK(net.l2->W.device() == Device::native());
    CHECK(net.l2->W.array().storage() == before.storage());  // already there: not copied
    CHECK(net.l2->W.grad().defined());
    CHECK(net.l2->avg.device() == Device::native());
    CHECK(net.l1->W.device() == Device::native());
    net(input());
    CHECK(net.l1->W.array().device() == Device::native());
}

}  // namespace
}  // namespace rensa::links
