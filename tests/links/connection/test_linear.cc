// Linear: forward against F::linear and a hand computation, lazy in_size, initializers,
// gradients, copies, devices, serialization and errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "core/ops/creation.h"
#include "core/ops/reduction.h"
#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/linear.h"
#include "links/initializers.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Linear: forward matches F::linear", "[links][connection]") {
    seed(0);
    L::Linear link(3, 2);
    REQUIRE(link.W.shape() == Shape{2, 3});
    REQUIRE(link.b.shape() == Shape{2});
    link.b.array().assign(random_array({2}));  // a non-zero bias, so that b is really used
    const Variable x(random_array({4, 3}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{4, 2});
    check_allclose(y.array(), F::linear(x, link.W, link.b).array());
}

TEST_CASE("Linear: given initializers", "[links][connection]") {
    L::Linear link(3, 2, false, initializers::constant(0.5), initializers::constant(2.0));
    const Variable x(make_array({1, 2, 3, -1, 0, 4}, {2, 3}, Dtype::kFloat32));
    check_allclose(link(x).array(), {5, 5, 3.5, 3.5}, {2, 2}, {1e-6, 1e-6});
}

TEST_CASE("Linear: default initializers are LeCunNormal and zeros", "[links][connection]") {
    seed(1);
    L::Linear link(400, 50);
    const std::vector<double> w = to_doubles(link.W.array());
    double mean = 0, var = 0;
    for (const double v : w) mean += v;
    mean /= static_cast<double>(w.size());
    for (const double v : w) var += (v - mean) * (v - mean);
    const double stddev = std::sqrt(var / static_cast<double>(w.size()));
    CHECK(std::abs(mean) < 0.003);
    CHECK(stddev == Approx(std::sqrt(1.0 / 400)).epsilon(0.05));
    check_allclose(link.b.array(), std::vector<double>(50, 0.0), {50}, {0.0, 0.0});
    CHECK(link.W.dtype() == Dtype::kFloat32);
}

TEST_CASE("Linear: lazy in_size is learnt from x", "[links][connection]") {
    seed(2);
    L::Linear link(std::nullopt, 4);
    CHECK_FALSE(link.W.is_initialized());
    CHECK_FALSE(link.in_size().has_value());
    CHECK(link.b.is_initialized());
    CHECK(link.out_size() == 4);
    const Variable y = link(Variable(random_array({2, 3, 2})));  // flattened: 6 features
    CHECK(y.shape() == Shape{2, 4});
    REQUIRE(link.W.is_initialized());
    CHECK(link.W.shape() == Shape{4, 6});
    CHECK(link.in_size() == 6);
}

TEST_CASE("Linear: out_size shorthand", "[links][connection]") {
    L::Linear link(5);  // Chainer's Linear(5) == Linear(None, 5)
    CHECK(link.out_size() == 5);
    CHECK_FALSE(link.W.is_initialized());
    CHECK(link(Variable(ops::ones({2, 3}))).shape() == Shape{2, 5});
    CHECK(link.W.shape() == Shape{5, 3});
}

TEST_CASE("Linear: n_batch_axes", "[links][connection]") {
    seed(3);
    L::Linear link(std::nullopt, 5);
    const Variable x(random_array({2, 3, 4}));
    const Variable y = link.forward(x, 2);
    CHECK(y.shape() == Shape{2, 3, 5});
    CHECK(link.W.shape() == Shape{5, 4});
    check_allclose(y.array(), F::linear(x, link.W, link.b, 2).array());
}

TEST_CASE("Linear: nobias", "[links][connection]") {
    seed(4);
    L::Linear link(3, 2, true);
    CHECK_FALSE(link.b.defined());
    CHECK(param_names(link) == std::vector<std::string>{"/W"});
    const Variable x(random_array({4, 3}));
    check_allclose(link(x).array(), F::linear(x, link.W).array());
}

TEST_CASE("Linear: gradients", "[links][connection]") {
    seed(5);
    L::Linear link(3, 2);
    link.b.array().assign(random_array({2}));
    to_float64(link);
    check_link_gradients(link, {random_array({4, 3}, Dtype::kFloat64)});
}

TEST_CASE("Linear: namedparams and serialized keys", "[links][connection]") {
    L::Linear link(3, 2);
    CHECK(param_names(link) == std::vector<std::string>{"/W", "/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "b"});
}

TEST_CASE("Linear: copy shares the arrays", "[links][connection]") {
    seed(6);
    L::Linear link(3, 2);
    check_copy_shares_arrays(link, {random_array({2, 3})});
}

TEST_CASE("Linear: to_device round trip", "[links][connection]") {
    seed(7);
    L::Linear link(3, 2);
    check_to_device_round_trip(link, {random_array({2, 3})});
    L::Linear lazy(std::nullopt, 2);  // a lazy W is created on the link's device
    lazy.to_device(Device::native());
    (void)lazy(Variable(random_array({2, 3})));
    CHECK(lazy.W.device() == Device::native());
}

TEST_CASE("Linear: wrong input size names the link", "[links][connection]") {
    L::Linear link(3, 2);
    const Variable x(ops::zeros({4, 5}));
    CHECK_THROWS_AS(link(x), DimensionError);
    CHECK_THROWS_WITH(link(x), Catch::Contains("Linear") && Catch::Contains("in_size=3"));
    CHECK_THROWS_AS(link.forward(x, 3), DimensionError);
}

TEST_CASE("Linear: NPZ round trip", "[links][connection]") {
    seed(8);
    L::Linear src(3, 2);
    src.b.array().assign(random_array({2}));
    L::Linear dst(3, 2);
    check_npz_round_trip(src, dst, "linear");
    L::Linear lazy(std::nullopt, 2);  // a lazy W takes the stored shape
    check_npz_round_trip(src, lazy, "linear_lazy");
    CHECK(lazy.W.shape() == Shape{2, 3});
}
