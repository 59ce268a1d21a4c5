// Link::copy in its three modes, repeat and Sequential. See Note [Link copies].
#include <catch2/catch.hpp>
#include <vector>

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/operators.h"
#include "functions/activation.h"
#include "tests/testing/testing.h"
#include "toy_links.h"

namespace rensa::links {
namespace {

using testing::Net;
using testing::Toy;

Variable input() { return Variable(rensa::testing::make_array({1, -2, 3, -4, 5, -6, 7, -8}, {2, 4}, Dtype::kFloat32)); }

std::shared_ptr<Net> copy_net(const Net& net, CopyMode mode) {
    auto copy = std::dynamic_pointer_cast<Net>(net.copy(mode));
    REQUIRE(copy != nullptr);
    return copy;
}

TEST_CASE("copy rebinds member children and parameters to the copy's own", "[links][link]") {
    Net net;
    auto copy = copy_net(net, CopyMode::kShare);
    CHECK(copy->l1 != net.l1);
    CHECK(copy->blocks != net.blocks);
    CHECK(&copy->child("l1") == copy->l1.get());
    CHECK(&(*copy)["blocks"] == copy->blocks.get());
    CHECK(&copy->l2->param("W") == &copy->l2->W);
    CHECK(copy->params()[2] == copy->child("blocks").child("0").param("W"));
    CHECK(copy->name().empty());
    CHECK(copy->l1->name() == "l1");
    CHECK((*copy->blocks)[1].name() == "1");
    for (size_t i = 0; i < net.params().size(); ++i) CHECK_FALSE(copy->params()[i] == net.params()[i]);
}

TEST_CASE("copy share aliases the arrays but not the grads", "[links][link]") {
    Net net;
    net.l2->W.set_grad(ops::ones({2, 3}));
    auto copy = copy_net(net, CopyMode::kShare);
    CHECK(copy->l2->W.array().storage() == net.l2->W.array().storage());
    CHECK(copy->l2->avg.storage() == net.l2->avg.storage());
    CHECK_FALSE(copy->l2->W.grad().defined());
    copy->l2->W.set_grad(ops::zeros({2, 3}));
    CHECK(net.l2->W.grad().to_vector<double>() == std::vector<double>(6, 1.0));
    // Lazy parameters stay lazy and are initialised independently.
    CHECK_FALSE(copy->l1->W.is_initialized());
    (*copy)(input());
    CHECK(copy->l1->W.is_initialized());
    CHECK_FALSE(net.l1->W.is_initialized());
    CHECK(copy->l1->count == 1);
    CHECK(net.l1->count == 0);
}

TEST_CASE("copy copy gives separate arrays with equal values", "[links][link]") {
    Net net;
    net(input());
    net.l2->avg.fill(2.0);
    auto copy = copy_net(net, CopyMode::kCopy);
    const auto a = net.namedparams();
    const auto b = copy->namedparams();
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].first == b[i].first);
        CHECK(a[i].second.array().storage() != b[i].second.array().storage());
        rensa::testing::check_allclose(b[i].second.array(), a[i].second.array());
    }
    CHECK(copy->l2->avg.storage() != net.l2->avg.storage());
    CHECK(copy->l2->avg.to_vector<double>() == std::vector<double>(2, 2.0));
    CHECK(copy->l2->count == 1);
}

TEST_CASE("copy init re-initialises the parameters with their initializers", "[links][link]") {
    Net net;
    net(input());
    net.l2->b.array().fill(5.0);
    net.l2->W.disable_update();
    auto copy = copy_net(net, CopyMode::kInit);
    CHECK(copy->l1->W.is_initialized());
    CHECK(copy->l1->W.shape() == net.l1->W.shape());
    CHECK(copy->l2->W.array().storage() != net.l2->W.array().storage());
    CHECK(copy->l2->W.array().to_vector<double>() != net.l2->W.array().to_vector<double>());  // new draw
    CHECK(copy->l2->b.array().to_vector<double>() == std::vector<double>(2, 0.0));            // Constant(0)
    CHECK_FALSE(copy->l2->W.update_enabled());
    CHECK(copy->l2->W.name() == "W");
}

TEST_CASE("copy handles member-less parameters, persistents and children", "[links][link]") {
    Chain chain;
    chain.add_param("p", Shape{2}, Dtype::kFloat32, initializers::constant(1.0));
    chain.add_persistent("mean", ops::zeros({2}));
    chain.add_persistent("n", int64_t{3});
    chain.add_link("toy", std::make_shared<Toy>(2, 2));
    for (CopyMode mode : {CopyMode::kShare, CopyMode::kCopy, CopyMode::kInit}) {
        auto copy = chain.copy(mode);
        CHECK_FALSE(copy->param("p") == chain.param("p"));
        CHECK((copy->param("p").array().storage() == chain.param("p").array().storage()) == (mode == CopyMode::kShare));
        CHECK((copy->persistent_array("mean").storage() == chain.persistent_array("mean").storage()) ==
              (mode == CopyMode::kShare));
        CHECK(&copy->child("toy") != &chain.child("toy"));
        CHECK(copy->param("p").array().to_vector<double>() == std::vector<double>(2, 1.0));
        *std::get<int64_t*>(copy->persistent("n")) = 9;
        CHECK(*std::get<int64_t*>(chain.persistent("n")) == 3);
    }
}

class Plain : public Link {};  // not Cloneable

TEST_CASE("copy of a link that is not Cloneable throws NotImplementedError", "[links][link]") {
    Plain plain;
    CHECK_THROWS_AS(plain.copy(), NotImplementedError);
    CHECK_THROWS_WITH(plain.copy(), Catch::Contains("Plain"));
    Chain chain;
    chain.add_link("plain", std::make_shared<Plain>());
    CHECK_THROWS_AS(chain.copy(), NotImplementedError);
}

TEST_CASE("repeat makes a Sequential of copies", "[links][link]") {
    Toy toy(3, 3);
    auto init = toy.repeat(3);
    REQUIRE(init->size() == 3);
    CHECK(init->num_layers() == 3);
    CHECK((*init)[0].param("W").array().storage() != toy.W.array().storage());
    CHECK((*init)[0].param("W").array().to_vector<double>() != (*init)[1].param("W").array().to_vector<double>());
    auto shared = toy.repeat(2, CopyMode::kShare);
    CHECK((*shared)[1].param("W").array().storage() == toy.W.array().storage());
    CHECK(toy.repeat(0)->size() == 0);
    auto y = (*init)(Variable(ops::ones({1, 3})));
    CHECK(y.shape() == Shape{1, 3});
}

TEST_CASE("Sequential calls links and functions in order", "[links][link]") {
    auto l1 = std::make_shared<Toy>(4, 3);
    auto l2 = std::make_shared<Toy>(3, 2);
    Sequential seq({l1, [](const Variable& h) { return functions::relu(h); }, l2});
    CHECK(seq.num_layers() == 3);
    CHECK(seq.size() == 2);
    CHECK(&seq[1] == l2.get());
    const Variable x = input();
    const Variable expected = (*l2)(functions::relu((*l1)(x)));
    rensa::testing::check_allclose(seq(x).array(), expected.array());
    seq.append([](const Variable& h) { return functions::relu(-h); });
    rensa::testing::check_allclose(seq(x).array(), functions::relu(-expected).array());
    CHECK_THROWS_AS(Sequential()(x), ValueError);
}

TEST_CASE("a copy of a Sequential calls the copy's children", "[links][link]") {
    auto l1 = std::make_shared<Toy>(4, 2);
    Sequential seq({l1, [](const Variable& h) { return h * 2.0; }});
    auto copy = std::dynamic_pointer_cast<Sequential>(seq.copy(CopyMode::kCopy));
    REQUIRE(copy != nullptr);
    auto& copy_l1 = dynamic_cast<Toy&>((*copy)[0]);
    copy_l1.b.array().fill(1.0);
    const Variable x = input();
    const Variable y = (*copy)(x);
    CHECK(copy_l1.count == 1);
    CHECK(l1->count == 0);
    rensa::testing::check_allclose(y.array(), ((*l1)(x) + 1.0).array() * 2.0);
}

}  // namespace
}  // namespace rensa::links
