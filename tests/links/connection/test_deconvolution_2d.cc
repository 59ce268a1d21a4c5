// Deconvolution2D: forward against F::deconvolution_2d, outsize, lazy in_channels, groups,
// gradients, copies, devices, serialization and errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/deconvolution_2d.h"
#include "links/initializers.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Deconvolution2D: forward matches F::deconvolution_2d", "[links][connection]") {
    seed(0);
    L::Deconvolution2D link(3, 2, 3, {.stride = 2, .pad = 1});
    REQUIRE(link.W.shape() == Shape{3, 2, 3, 3});
    REQUIRE(link.b.shape() == Shape{2});
    link.b.array().assign(random_array({2}));
    const Variable x(random_array({2, 3, 4, 4}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{2, 2, 7, 7});
    check_allclose(y.array(), F::deconvolution_2d(x, link.W, link.b, {.stride = 2, .pad = 1}).array());
}

TEST_CASE("Deconvolution2D: outsize and groups", "[links][connection]") {
    seed(1);
    L::Deconvolution2D link(4, 6, 3, {.stride = 2, .pad = 1, .outsize = Shape{8, 8}, .groups = 2});
    REQUIRE(link.W.shape() == Shape{4, 3, 3, 3});
    const Variable x(random_array({1, 4, 4, 4}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{1, 6, 8, 8});
    check_allclose(
        y.array(),
        F::deconvolution_2d(x, link.W, link.b, {.stride = 2, .pad = 1, .outsize = Shape{8, 8}, .groups = 2}).array());
}

TEST_CASE("Deconvolution2D: given initializers", "[links][connection]") {
    L::Deconvolution2D link(2, 1, 1,
                            {.initialW = initializers::constant(2.0), .initial_bias = initializers::constant(1.0)});
    const Variable x(make_array({1, 2, 3, 4}, {1, 2, 1, 2}, Dtype::kFloat32));
    check_allclose(link(x).array(), {9.0, 13.0}, {1, 1, 1, 2}, {1e-6, 1e-6});  // 2 * (1 + 3) + 1, 2 * (2 + 4) + 1
}

TEST_CASE("Deconvolution2D: lazy in_channels and the shorthand", "[links][connection]") {
    seed(2);
    L::Deconvolution2D lazy(std::nullopt, 4, 2);
    L::Deconvolution2D shorthand(4, 2);  // Chainer's Deconvolution2D(out_channels, ksize)
    for (L::Deconvolution2D* link : {&lazy, &shorthand}) {
        CHECK_FALSE(link->W.is_initialized());
        CHECK((*link)(Variable(random_array({1, 3, 2, 2}))).shape() == Shape{1, 4, 3, 3});
        CHECK(link->W.shape() == Shape{3, 4, 2, 2});
    }
}

TEST_CASE("Deconvolution2D: gradients", "[links][connection]") {
    seed(3);
    L::Deconvolution2D link(2, 3, 2, {.stride = 2});
    link.b.array().assign(random_array({3}));
    to_float64(link);
    check_link_gradients(link, {random_array({1, 2, 2, 2}, Dtype::kFloat64)});
}

TEST_CASE("Deconvolution2D: namedparams, copy, device and NPZ round trip", "[links][connection]") {
    seed(4);
    L::Deconvolution2D link(2, 3, 2);
    CHECK(param_names(link) == std::vector<std::string>{"/W", "/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "b"});
    const std::vector<Array> xs{random_array({1, 2, 2, 2})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    link.b.array().assign(random_array({3}));
    L::Deconvolution2D dst(2, 3, 2);
    check_npz_round_trip(link, dst, "deconvolution_2d");
    L::Deconvolution2D nobias(2, 3, 2, {.nobias = true});
    CHECK(param_names(nobias) == std::vector<std::string>{"/W"});
}

TEST_CASE("Deconvolution2D: errors name the link", "[links][connection]") {
    L::Deconvolution2D link(3, 4, 3);
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 2, 5, 5}))), DimensionError);
    CHECK_THROWS_WITH(link(Variable(ops::zeros({1, 2, 5, 5}))),
                      Catch::Contains("Deconvolution2D") && Catch::Contains("in_channels=3"));
    CHECK_THROWS_AS(L::Deconvolution2D(3, 4, 1, {.groups = 3}), ValueError);
}
