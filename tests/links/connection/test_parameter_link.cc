// ParameterLink (chainer.links.Parameter): W holds the given array, forward returns it as a
// new variable whose gradient reaches W; copies, serialization and errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "links/connection/parameter_link.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("ParameterLink: W aliases the array and forward returns it", "[links][connection]") {
    seed(0);
    const Array array = random_array({2, 3}, Dtype::kFloat64);
    L::ParameterLink link(array);
    CHECK(param_names(link) == std::vector<std::string>{"/W"});
    CHECK(link.W.array().raw_data() == array.raw_data());  // no copy, as Chainer's W.array = array
    const Variable y = link.forward();
    CHECK_FALSE(y == link.W);
    check_allclose(y.array(), array, {0.0, 0.0});
    check_allclose(call(link, {}).array(), array, {0.0, 0.0});
}

TEST_CASE("ParameterLink: the gradient of its output reaches W", "[links][connection]") {
    seed(1);
    L::ParameterLink link(random_array({3}, Dtype::kFloat64));
    const Variable y = link.forward();
    const Array gy = random_array({3}, Dtype::kFloat64);
    y.set_grad(gy);
    y.backward();
    REQUIRE(link.W.grad().defined());
    check_allclose(link.W.grad(), gy, {0.0, 0.0});
}

TEST_CASE("ParameterLink: copies share W, NPZ round trip under Chainer's key W", "[links][connection]") {
    seed(2);
    L::ParameterLink link(random_array({2, 2}));
    check_copy_shares_arrays(link, {});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W"});
    L::ParameterLink target(ops::zeros({2, 2}));
    check_npz_round_trip(link, target, "parameter_link");
}

TEST_CASE("ParameterLink: errors name the link", "[links][connection]") {
    CHECK_THROWS_WITH(L::ParameterLink(Array{}), Catch::Contains("Parameter: Expect: an array"));
    L::ParameterLink link(ops::zeros({2}));
    const Variable x(ops::zeros({2}));
    CHECK_THROWS_WITH(link.forward(std::vector<Variable>{x}), Catch::Contains("Parameter: Expect: no inputs"));
}
