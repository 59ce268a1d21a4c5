// Highway: plain/transform children, the -1 gate bias, forward against its formula,
// gradients, copies, devices, serialization and errors.

#include <catch2/catch.hpp>

#include "autograd/basic_math.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "links/connection/highway.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Highway: forward matches its formula", "[links][connection]") {
    seed(0);
    L::Highway link(3);
    REQUIRE(link.plain->W.shape() == Shape{3, 3});
    REQUIRE(link.transform->W.shape() == Shape{3, 3});
    check_allclose(link.transform->b.array(), {-1, -1, -1}, {3}, {0.0, 0.0});
    check_allclose(link.plain->b.array(), {0, 0, 0}, {3}, {0.0, 0.0});
    const Variable x(random_array({4, 3}));
    const Variable h = F::relu(F::linear(x, link.plain->W, link.plain->b));
    const Variable t = F::sigmoid(F::linear(x, link.transform->W, link.transform->b));
    const Variable expected = h * t + x * (1.0 - t);
    const Variable y = link(x);
    CHECK(y.shape() == Shape{4, 3});
    check_allclose(y.array(), expected.array());
}

TEST_CASE("Highway: options", "[links][connection]") {
    seed(1);
    L::Highway link(2, {.nobias = true,
                        .activate = [](const Variable& v) { return F::tanh(v); },
                        .init_Wh = initializers::constant(0.5),
                        .init_Wt = initializers::constant(0.0)});
    CHECK(param_names(link) == std::vector<std::string>{"/plain/W", "/transform/W"});
    const Variable x(make_array({1, -1}, {1, 2}, Dtype::kFloat32));
    // plain: tanh(0) = 0 for both units; transform gate sigmoid(0) = 0.5: y = 0.5 x
    check_allclose(link(x).array(), {0.5, -0.5}, {1, 2}, {1e-6, 1e-6});
}

TEST_CASE("Highway: gradients", "[links][connection]") {
    seed(2);
    L::Highway link(3, {.activate = [](const Variable& v) { return F::tanh(v); }});
    to_float64(link);
    check_link_gradients(link, {random_array({2, 3}, Dtype::kFloat64)});
}

TEST_CASE("Highway: namedparams, copy, device, NPZ round trip and errors", "[links][connection]") {
    seed(3);
    L::Highway link(3);
    CHECK(param_names(link) == std::vector<std::string>{"/plain/W", "/plain/b", "/transform/W", "/transform/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"plain/W", "plain/b", "transform/W", "transform/b"});
    const std::vector<Array> xs{random_array({2, 3})};
    check_copy_shares_arrays(link, xs);
    const auto copy = std::dynamic_pointer_cast<L::Highway>(link.copy());
    CHECK(copy->plain != link.plain);
    check_to_device_round_trip(link, xs);
    L::Highway dst(3);
    check_npz_round_trip(link, dst, "highway");
    CHECK_THROWS_AS(link(Variable(ops::zeros({2, 4}))), DimensionError);
    CHECK_THROWS_WITH(link(Variable(ops::zeros({2, 4}))), Catch::Contains("Linear"));
}
