// Convolution2D: forward against F::convolution_2d, options, lazy in_channels, groups,
// initializers, gradients, copies, devices, serialization and errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/convolution_2d.h"
#include "links/initializers.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Convolution2D: forward matches F::convolution_2d", "[links][connection]") {
    seed(0);
    L::Convolution2D link(3, 4, 3, {.stride = 2, .pad = 1});
    REQUIRE(link.W.shape() == Shape{4, 3, 3, 3});
    REQUIRE(link.b.shape() == Shape{4});
    link.b.array().assign(random_array({4}));
    const Variable x(random_array({2, 3, 5, 5}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{2, 4, 3, 3});
    check_allclose(y.array(), F::convolution_2d(x, link.W, link.b, {.stride = 2, .pad = 1}).array());
}

TEST_CASE("Convolution2D: tuple ksize, dilate and groups", "[links][connection]") {
    seed(1);
    L::Convolution2D link(4, 6, {3, 1}, {.pad = {2, 0}, .dilate = 2, .groups = 2});
    REQUIRE(link.W.shape() == Shape{6, 2, 3, 1});
    const Variable x(random_array({1, 4, 5, 3}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{1, 6, 5, 3});
    check_allclose(y.array(), F::convolution_2d(x, link.W, link.b, {.pad = {2, 0}, .dilate = 2, .groups = 2}).array());
}

TEST_CASE("Convolution2D: given initializers", "[links][connection]") {
    L::Convolution2D link(2, 1, 2,
                          {.initialW = initializers::constant(1.0), .initial_bias = initializers::constant(-1.0)});
    const Variable x(make_array(iota(8), {1, 2, 2, 2}, Dtype::kFloat32));
    check_allclose(link(x).array(), {27.0}, {1, 1, 1, 1}, {1e-6, 1e-6});  // 0 + 1 + ... + 7 - 1
}

TEST_CASE("Convolution2D: default initializers are LeCunNormal and zeros", "[links][connection]") {
    seed(2);
    L::Convolution2D link(8, 16, 3);
    const std::vector<double> w = to_doubles(link.W.array());
    double mean = 0, var = 0;
    for (const double v : w) mean += v;
    mean /= static_cast<double>(w.size());
    for (const double v : w) var += (v - mean) * (v - mean);
    CHECK(std::abs(mean) < 0.02);
    CHECK(std::sqrt(var / static_cast<double>(w.size())) == Approx(std::sqrt(1.0 / 72)).epsilon(0.1));
    check_allclose(link.b.array(), std::vector<double>(16, 0.0), {16}, {0.0, 0.0});
}

TEST_CASE("Convolution2D: lazy in_channels and the shorthand", "[links][connection]") {
    seed(3);
    L::Convolution2D lazy(std::nullopt, 4, 3, {.pad = 1});
    // Chainer's Convolution2D(out_channels, ksize); two designators (see the constructor's note)
    L::Convolution2D shorthand(4, 3, {.stride = 1, .pad = 1});
    for (L::Convolution2D* link : {&lazy, &shorthand}) {
        CHECK_FALSE(link->W.is_initialized());
        CHECK(link->b.shape() == Shape{4});
        CHECK((*link)(Variable(random_array({1, 5, 3, 3}))).shape() == Shape{1, 4, 3, 3});
        CHECK(link->W.shape() == Shape{4, 5, 3, 3});
    }
    L::Convolution2D grouped(std::nullopt, 4, 1, {.groups = 2});
    CHECK_THROWS_AS(grouped(Variable(ops::zeros({1, 3, 2, 2}))), ValueError);  // 3 channels, 2 groups
    CHECK_FALSE(grouped.W.is_initialized());
}

TEST_CASE("Convolution2D: nobias", "[links][connection]") {
    L::Convolution2D link(2, 3, 1, {.nobias = true});
    CHECK_FALSE(link.b.defined());
    CHECK(param_names(link) == std::vector<std::string>{"/W"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W"});
}

TEST_CASE("Convolution2D: gradients", "[links][connection]") {
    seed(4);
    L::Convolution2D link(2, 3, 2, {.stride = 1, .pad = 1});
    link.b.array().assign(random_array({3}));
    to_float64(link);
    check_link_gradients(link, {random_array({1, 2, 3, 3}, Dtype::kFloat64)});
}

TEST_CASE("Convolution2D: namedparams, copy, device and NPZ round trip", "[links][connection]") {
    seed(5);
    L::Convolution2D link(2, 3, 2);
    CHECK(param_names(link) == std::vector<std::string>{"/W", "/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "b"});
    const std::vector<Array> xs{random_array({1, 2, 3, 3})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    link.b.array().assign(random_array({3}));
    L::Convolution2D dst(std::nullopt, 3, 2);
    check_npz_round_trip(link, dst, "convolution_2d");
}

TEST_CASE("Convolution2D: errors name the link", "[links][connection]") {
    L::Convolution2D link(3, 4, 3);
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 2, 5, 5}))), DimensionError);
    CHECK_THROWS_WITH(link(Variable(ops::zeros({1, 2, 5, 5}))),
                      Catch::Contains("Convolution2D") && Catch::Contains("in_channels=3"));
    CHECK_THROWS_AS(link(Variable(ops::zeros({3, 5, 5}))), DimensionError);
    CHECK_THROWS_WITH(link(Variable(ops::zeros({3, 5, 5}))), Catch::Contains("Convolution2D"));
    CHECK_THROWS_AS(L::Convolution2D(3, 4, {1, 2, 3}), ValueError);
    CHECK_THROWS_AS(L::Convolution2D(3, 5, 1, {.groups = 3}), ValueError);  // 5 out channels, 3 groups
    CHECK_THROWS_AS(L::Convolution2D(4, 6, 1, {.groups = 3}), ValueError);  // 4 in channels, 3 groups
}
