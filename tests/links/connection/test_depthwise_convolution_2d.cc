// DepthwiseConvolution2D: forward against F::depthwise_convolution_2d, lazy W and b,
// gradients, copies, devices, serialization and errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/depthwise_convolution_2d.h"
#include "links/initializers.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("DepthwiseConvolution2D: forward matches F::depthwise_convolution_2d", "[links][connection]") {
    seed(0);
    L::DepthwiseConvolution2D link(3, 2, 3, {.stride = 1, .pad = 1});
    REQUIRE(link.W.shape() == Shape{2, 3, 3, 3});
    REQUIRE(link.b.shape() == Shape{6});
    link.b.array().assign(random_array({6}));
    const Variable x(random_array({2, 3, 4, 4}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{2, 6, 4, 4});
    check_allclose(y.array(), F::depthwise_convolution_2d(x, link.W, link.b, {.stride = 1, .pad = 1}).array());
}

TEST_CASE("DepthwiseConvolution2D: given initializers", "[links][connection]") {
    L::DepthwiseConvolution2D link(
        2, 1, 1, {.initialW = initializers::constant(3.0), .initial_bias = initializers::constant(1.0)});
    const Variable x(make_array({1, 2}, {1, 2, 1, 1}, Dtype::kFloat32));
    check_allclose(link(x).array(), {4.0, 7.0}, {1, 2, 1, 1}, {1e-6, 1e-6});  // channels stay apart
}

TEST_CASE("DepthwiseConvolution2D: lazy W and b", "[links][connection]") {
    seed(1);
    L::DepthwiseConvolution2D link(std::nullopt, 2, 2);
    CHECK_FALSE(link.W.is_initialized());
    CHECK_FALSE(link.b.is_initialized());
    CHECK(param_names(link) == std::vector<std::string>{"/W", "/b"});
    CHECK(link(Variable(random_array({1, 3, 3, 3}))).shape() == Shape{1, 6, 2, 2});
    CHECK(link.W.shape() == Shape{2, 3, 2, 2});
    CHECK(link.b.shape() == Shape{6});
    L::DepthwiseConvolution2D nobias(std::nullopt, 2, 2, {.nobias = true});
    CHECK(nobias(Variable(random_array({1, 3, 3, 3}))).shape() == Shape{1, 6, 2, 2});
    CHECK(param_names(nobias) == std::vector<std::string>{"/W"});
}

TEST_CASE("DepthwiseConvolution2D: gradients", "[links][connection]") {
    seed(2);
    L::DepthwiseConvolution2D link(2, 2, 2, {.pad = 1});
    link.b.array().assign(random_array({4}));
    to_float64(link);
    check_link_gradients(link, {random_array({1, 2, 2, 2}, Dtype::kFloat64)});
}

TEST_CASE("DepthwiseConvolution2D: copy, device and NPZ round trip", "[links][connection]") {
    seed(3);
    L::DepthwiseConvolution2D link(2, 2, 2);
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "b"});
    const std::vector<Array> xs{random_array({1, 2, 3, 3})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    link.b.array().assign(random_array({4}));
    L::DepthwiseConvolution2D dst(std::nullopt, 2, 2);
    check_npz_round_trip(link, dst, "depthwise_convolution_2d");
}

TEST_CASE("DepthwiseConvolution2D: errors name the link", "[links][connection]") {
    L::DepthwiseConvolution2D link(3, 2, 3);
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 2, 5, 5}))), DimensionError);
    CHECK_THROWS_WITH(link(Variable(ops::zeros({1, 2, 5, 5}))),
                      Catch::Contains("DepthwiseConvolution2D") && Catch::Contains("in_channels=3"));
    CHECK_THROWS_AS(L::DepthwiseConvolution2D(3, 0, 3), ValueError);
}
