// Bias and Scale: learnt and given operands, Scale's bias child, gradients, copies, devices,
// serialization and errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/math.h"
#include "links/connection/bias.h"
#include "links/connection/scale.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Bias: learnt b matches F::bias", "[links][connection]") {
    seed(0);
    L::Bias link(1, Shape{3});
    REQUIRE(link.b.shape() == Shape{3});
    check_allclose(link.b.array(), {0, 0, 0}, {3}, {0.0, 0.0});
    link.b.array().assign(random_array({3}));
    const Variable x(random_array({2, 3, 4}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{2, 3, 4});
    check_allclose(y.array(), F::bias(x, link.b, 1).array());
}

TEST_CASE("Bias: b as a second input", "[links][connection]") {
    seed(1);
    L::Bias link(2);
    CHECK_FALSE(link.b.defined());
    CHECK(param_names(link).empty());
    const Variable x(random_array({2, 3, 4})), b(random_array({4}));
    check_allclose(link(x, b).array(), F::bias(x, b, 2).array());
    CHECK_THROWS_AS(link(x), ValueError);
    CHECK_THROWS_WITH(link(x), Catch::Contains("Bias"));
    CHECK_THROWS_AS(link.forward(std::vector<Variable>{x, b, b}), ValueError);
}

TEST_CASE("Bias: gradients", "[links][connection]") {
    seed(2);
    L::Bias learnt(1, Shape{3, 2});
    learnt.b.array().assign(random_array({3, 2}));
    to_float64(learnt);
    check_link_gradients(learnt, {random_array({2, 3, 2}, Dtype::kFloat64)});
    L::Bias given(1);
    check_link_gradients(given, {random_array({2, 3, 2}, Dtype::kFloat64), random_array({3}, Dtype::kFloat64)});
}

TEST_CASE("Bias: copy, device, NPZ round trip and errors", "[links][connection]") {
    seed(3);
    L::Bias link(1, Shape{3});
    link.b.array().assign(random_array({3}));
    CHECK(serialized_keys(link) == std::vector<std::string>{"b"});
    const std::vector<Array> xs{random_array({2, 3})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    L::Bias dst(1, Shape{3});
    check_npz_round_trip(link, dst, "bias");
    CHECK_THROWS_AS(link(Variable(ops::zeros({2, 4}))), DimensionError);
}

TEST_CASE("Scale: learnt W with a bias term", "[links][connection]") {
    seed(4);
    L::Scale link(1, Shape{3}, true);
    REQUIRE(link.W.shape() == Shape{3});
    REQUIRE(link.bias != nullptr);
    check_allclose(link.W.array(), {1, 1, 1}, {3}, {0.0, 0.0});
    CHECK(param_names(link) == std::vector<std::string>{"/W", "/bias/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "bias/b"});
    link.W.array().assign(random_array({3}));
    link.bias->b.array().assign(random_array({3}));
    const Variable x(random_array({2, 3, 2}));
    check_allclose(link(x).array(), F::bias(F::scale(x, link.W, 1), link.bias->b, 1).array());
    CHECK_THROWS_AS(link(x, x), ValueError);  // a learnt W takes only x
}

TEST_CASE("Scale: y as a second input", "[links][connection]") {
    seed(5);
    L::Scale plain(1);
    CHECK(param_names(plain).empty());
    CHECK(plain.bias == nullptr);
    const Variable x(random_array({2, 3})), y(random_array({3}));
    check_allclose(plain(x, y).array(), F::scale(x, y, 1).array());
    CHECK_THROWS_AS(plain(x), ValueError);
    L::Scale with_bias(1, std::nullopt, true, Shape{3});
    CHECK(param_names(with_bias) == std::vector<std::string>{"/bias/b"});
    with_bias.bias->b.array().assign(random_array({3}));
    check_allclose(with_bias(x, y).array(), F::bias(F::scale(x, y, 1), with_bias.bias->b, 1).array());
    CHECK_THROWS_AS(L::Scale(1, std::nullopt, true), ValueError);  // bias_term needs bias_shape without W
}

TEST_CASE("Scale: gradients", "[links][connection]") {
    seed(6);
    L::Scale learnt(1, Shape{3}, true);
    learnt.W.array().assign(random_array({3}));
    learnt.bias->b.array().assign(random_array({3}));
    to_float64(learnt);
    check_link_gradients(learnt, {random_array({2, 3, 2}, Dtype::kFloat64)});
    L::Scale given(0, std::nullopt, true, Shape{2});
    to_float64(given);
    check_link_gradients(given, {random_array({2, 3}, Dtype::kFloat64), random_array({2}, Dtype::kFloat64)});
}

TEST_CASE("Scale: copy, device and NPZ round trip", "[links][connection]") {
    seed(7);
    L::Scale link(1, Shape{3}, true);
    link.W.array().assign(random_array({3}));
    link.bias->b.array().assign(random_array({3}));
    const std::vector<Array> xs{random_array({2, 3})};
    check_copy_shares_arrays(link, xs);
    const auto copy = std::dynamic_pointer_cast<L::Scale>(link.copy());
    CHECK(copy->bias != link.bias);  // the child is copied too, and the member rebound
    check_to_device_round_trip(link, xs);
    L::Scale dst(1, Shape{3}, true);
    check_npz_round_trip(link, dst, "scale");
}
