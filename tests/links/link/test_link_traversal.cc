// Names, order and lookup of parameters, persistents and links.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "toy_links.h"

namespace rensa::links {
namespace {

using testing::Net;
using testing::Toy;

std::vector<std::string> names_of(const std::vector<std::pair<std::string, Parameter>>& named) {
    std::vector<std::string> out;
    for (const auto& [name, p] : named) out.push_back(name);
    return out;
}

TEST_CASE("namedparams lists own parameters then children in registration order", "[links][link]") {
    Net net;
    const std::vector<std::string> all = {"/l1/W",       "/l1/b",       "/blocks/0/W", "/blocks/0/b",
                                          "/blocks/1/W", "/blocks/1/b", "/l2/W",       "/l2/b"};
    CHECK(names_of(net.namedparams()) == all);
    // l1/W is lazy: skipped without include_uninit.
    std::vector<std::string> init = all;
    init.erase(init.begin());
    CHECK(names_of(net.namedparams(false)) == init);
    CHECK(net.params().size() == 8);
    CHECK(net.params(false).size() == 7);
    CHECK(net.params()[0] == net.l1->W);
    CHECK(names_of(net.l2->namedparams()) == std::vector<std::string>{"/W", "/b"});
}

TEST_CASE("namedlinks and links walk depth first from the link", "[links][link]") {
    Net net;
    const auto named = net.namedlinks();
    std::vector<std::string> names;
    for (const auto& [name, link] : named) names.push_back(name);
    CHECK(names == std::vector<std::string>{"/", "/l1", "/blocks", "/blocks/0", "/blocks/1", "/l2"});
    CHECK(named[0].second == &net);
    CHECK(named[3].second == &(*net.blocks)[0]);
    const auto skipped = net.namedlinks(true);
    REQUIRE(skipped.size() == 5);
    CHECK(skipped[0].first == "/l1");
    const auto links = net.links();
    REQUIRE(links.size() == 6);
    CHECK(links[5] == net.l2.get());
    CHECK(net.links(true).size() == 5);
}

TEST_CASE("children are the direct children and carry their names", "[links][link]") {
    Net net;
    const auto children = net.children();
    REQUIRE(children.size() == 3);
    CHECK(children[0] == net.l1.get());
    CHECK(children[1] == net.blocks.get());
    CHECK(children[2] == net.l2.get());
    CHECK(net.l1->name() == "l1");
    CHECK((*net.blocks)[1].name() == "1");
    CHECK(net.name().empty());
    CHECK(&net["l2"] == net.l2.get());
    CHECK(&net.child("blocks") == net.blocks.get());
}

TEST_CASE("parameter names follow registration", "[links][link]") {
    Toy toy(2, 3);
    CHECK(toy.W.name() == "W");
    CHECK(toy.b.name() == "b");
    CHECK(&toy.param("W") == &toy.W);
    const auto own = toy.own_params();
    REQUIRE(own.size() == 2);
    CHECK(own[1].first == "b");
    CHECK(own[1].second == toy.b);
}

TEST_CASE("own_persistents and persistent lookup reach the members", "[links][link]") {
    Toy toy(2, 3);
    const auto own = toy.own_persistents();
    REQUIRE(own.size() == 2);
    CHECK(own[0].first == "avg");
    CHECK(std::get<Array*>(own[0].second) == &toy.avg);
    CHECK(std::get<int64_t*>(toy.persistent("count")) == &toy.count);
    CHECK(&toy.persistent_array("avg") == &toy.avg);
    CHECK_THROWS_AS(toy.persistent_array("count"), ValueError);
}

TEST_CASE("add_param and add_persistent register values without members", "[links][link]") {
    Chain chain;
    const Parameter& p = chain.add_param("p", Shape{2, 3});
    CHECK(p.is_initialized());
    CHECK(p.shape() == Shape{2, 3});
    CHECK(std::isnan(p.array().to_vector<double>()[0]));  // Chainer's default initializer: NaN
    chain.add_param("q", Shape{4}, Dtype::kFloat64, initializers::constant(2.0));
    CHECK(chain.param("q").dtype() == Dtype::kFloat64);
    CHECK(chain.param("q").array().to_vector<double>() == std::vector<double>(4, 2.0));
    const Parameter lazy = chain.add_param("lazy");
    CHECK_FALSE(lazy.is_initialized());
    Parameter shared(ops::ones({2}));
    chain.add_param("shared", shared);
    CHECK(chain.param("shared") == shared);

    chain.add_persistent("mean", ops::zeros({3}));
    chain.add_persistent("n", int64_t{5});
    chain.add_persistent("decay", 0.9);
    chain.add_persistent("flag", true);
    CHECK(chain.persistent_array("mean").shape() == Shape{3});
    CHECK(*std::get<int64_t*>(chain.persistent("n")) == 5);
    CHECK(*std::get<double*>(chain.persistent("decay")) == 0.9);
    CHECK(*std::get<bool*>(chain.persistent("flag")));
    CHECK(names_of(chain.namedparams()) == std::vector<std::string>{"/p", "/q", "/lazy", "/shared"});
}

TEST_CASE("duplicate names throw ValueError naming the link and the name", "[links][link]") {
    Chain chain;
    chain.add_param("W", Shape{2});
    CHECK_THROWS_AS(chain.add_param("W", Shape{2}), ValueError);
    CHECK_THROWS_WITH(chain.add_persistent("W", 1.0), Catch::Contains("'W'") && Catch::Contains("Chain"));
    CHECK_THROWS_AS(chain.add_link("W", std::make_shared<Toy>(1, 1)), ValueError);
    chain.add_link("l1", std::make_shared<Toy>(1, 1));
    CHECK_THROWS_WITH(chain.add_param("l1"), Catch::Contains("'l1'"));
    CHECK_THROWS_AS(chain.add_param("a/b"), ValueError);
    // The failed registrations left nothing behind.
    CHECK(chain.namedparams().size() == 3);
    CHECK(chain.children().size() == 1);
}

TEST_CASE("missing names throw KeyError", "[links][link]") {
    Net net;
    CHECK_THROWS_AS(net.param("W"), KeyError);
    CHECK_THROWS_WITH(net.l1->param("V"), Catch::Contains("'V'"));
    CHECK_THROWS_AS(net.persistent("avg"), KeyError);
    CHECK_THROWS_AS(net.child("l3"), KeyError);
    CHECK_THROWS_AS(net["l3"], KeyError);
}

TEST_CASE("ChainList numbers its children and indexes from both ends", "[links][link]") {
    ChainList list;
    auto a = std::make_shared<Toy>(1, 1);
    auto b = std::make_shared<Toy>(1, 1);
    list.append(a);
    list.add_link(b);
    CHECK(list.size() == 2);
    CHECK(&list[0] == a.get());
    CHECK(&list[-1] == b.get());
    CHECK(b->name() == "1");
    CHECK_THROWS_AS(list[2], IndexError);
    CHECK_THROWS_AS(list[-3], IndexError);
    CHECK(names_of(list.namedparams()) == std::vector<std::string>{"/0/W", "/0/b", "/1/W", "/1/b"});
}

TEST_CASE("the default forward throws NotImplementedError naming the class", "[links][link]") {
    Chain chain;
    const Variable x(ops::zeros({1}));
    CHECK_THROWS_AS(chain(x), NotImplementedError);
    CHECK_THROWS_WITH(chain(x), Catch::Contains("Chain"));
    CHECK_THROWS_AS(chain(x, x), NotImplementedError);
}

}  // namespace
}  // namespace rensa::links
