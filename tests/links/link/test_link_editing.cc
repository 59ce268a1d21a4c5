// ChainList::set_links and Sequential::set_layers (Chainer's container editing),
// Link::shallow_copy, Link::replace_param with Parameter::stand_in (link hooks).
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/math.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "tests/testing/testing.h"

namespace rensa::links {
namespace {

std::vector<std::string> child_names(Link& link) {
    std::vector<std::string> names;
    for (Link* child : link.children()) names.push_back(child->name());
    return names;
}

TEST_CASE("set_links replaces the children and renumbers them", "[links][link]") {
    auto a = std::make_shared<Linear>(2, 2), b = std::make_shared<Linear>(2, 3), c = std::make_shared<Linear>(3, 4);
    ChainList list({a, b});
    list.set_links({c, a});
    CHECK(child_names(list) == std::vector<std::string>{"0", "1"});
    CHECK(&list[0] == c.get());
    CHECK(&list[1] == a.get());
    CHECK(b->name().empty());
    std::vector<std::string> paths;
    for (const auto& [path, p] : list.namedparams()) paths.push_back(path);
    CHECK(paths == std::vector<std::string>{"/0/W", "/0/b", "/1/W", "/1/b"});
}

TEST_CASE("set_links rejects a null link and changes nothing", "[links][link]") {
    auto a = std::make_shared<Linear>(2, 2);
    ChainList list({a});
    CHECK_THROWS_AS(list.set_links({a, nullptr}), ValueError);
    CHECK(list.size() == 1);
    CHECK(&list[0] == a.get());
}

TEST_CASE("set_layers rebuilds a Sequential of links and functions", "[links][link]") {
    auto l1 = std::make_shared<Linear>(2, 2), l2 = std::make_shared<Linear>(2, 2);
    Sequential seq({l1, std::function<Variable(const Variable&)>(F::relu), l2});
    const Variable x(rensa::testing::make_array({1, -2, 3, -4}, {2, 2}, Dtype::kFloat32));
    seq.set_layers({l2, l1});
    CHECK(seq.num_layers() == 2);
    CHECK(&seq[0] == l2.get());
    rensa::testing::check_allclose(seq(x).array(), (*l1)((*l2)(x)).array());
    CHECK_THROWS_AS(seq.set_layers({std::function<Variable(const Variable&)>()}), ValueError);
    CHECK(seq.num_layers() == 2);
    seq.set_layers({});
    CHECK(seq.size() == 0);
    CHECK_THROWS_AS(seq(x), ValueError);
}

TEST_CASE("shallow_copy shares the parameters (Chainer's copy.copy)", "[links][link]") {
    Linear link(2, 3);
    auto copy = std::dynamic_pointer_cast<Linear>(link.shallow_copy());
    REQUIRE(copy != nullptr);
    CHECK(copy.get() != &link);
    copy->W.array().fill(7.0);
    CHECK(link.W.array().to_vector<float>() == std::vector<float>(6, 7.0F));
}

TEST_CASE("replace_param puts a computed weight in for one forward; gradients reach the parameter", "[links][link]") {
    Linear link(2, 2);
    const Variable x(rensa::testing::make_array({1, 2, 3, 4}, {2, 2}, Dtype::kFloat32));
    const Parameter original = link.W;
    const Variable doubled = link.W * 2.0;
    const Parameter old = link.replace_param("W", link.W.stand_in(doubled));
    CHECK(old.node() == original.node());
    const Variable y = link(x);
    link.replace_param("W", old);
    CHECK(link.W.node() == original.node());
    F::sum(y).backward();
    REQUIRE(original.grad().defined());
    // d sum(x (2W)^T) / dW = 2 * (column sums of x), per output row.
    CHECK(original.grad().to_vector<float>() == std::vector<float>{8, 12, 8, 12});
    CHECK_THROWS_AS(link.replace_param("V", old), KeyError);
    CHECK_THROWS_AS(link.W.stand_in(Variable()), ValueError);
}

}  // namespace
}  // namespace rensa::links
