// ConvolutionND and DeconvolutionND: forward against F::convolution_nd / deconvolution_nd in
// 1 and 3 spatial dims, cover_all, outsize, lazy in_channels, gradients, copies, devices,
// serialization and errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/convolution_nd.h"
#include "links/connection/deconvolution_nd.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("ConvolutionND: forward matches F::convolution_nd in 3-D", "[links][connection]") {
    seed(0);
    L::ConvolutionND link(3, 2, 3, 2, {.pad = {1, 0, 0}});
    REQUIRE(link.W.shape() == Shape{3, 2, 2, 2, 2});
    REQUIRE(link.b.shape() == Shape{3});
    CHECK(link.ndim() == 3);
    link.b.array().assign(random_array({3}));
    const Variable x(random_array({1, 2, 3, 3, 3}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{1, 3, 4, 2, 2});
    check_allclose(y.array(), F::convolution_nd(x, link.W, link.b, {.pad = {1, 0, 0}}).array());
}

TEST_CASE("ConvolutionND: cover_all and groups in 1-D", "[links][connection]") {
    seed(1);
    L::ConvolutionND link(1, 2, 4, 2, {.stride = 2, .cover_all = true, .groups = 2});
    REQUIRE(link.W.shape() == Shape{4, 1, 2});
    const Variable x(random_array({2, 2, 5}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{2, 4, 3});  // 2 without cover_all
    check_allclose(y.array(),
                   F::convolution_nd(x, link.W, link.b, {.stride = 2, .cover_all = true, .groups = 2}).array());
}

TEST_CASE("ConvolutionND: lazy in_channels and the shorthand", "[links][connection]") {
    seed(2);
    L::ConvolutionND lazy(2, std::nullopt, 3, 2);
    L::ConvolutionND shorthand(2, 3, 2);  // Chainer's ConvolutionND(ndim, out_channels, ksize)
    for (L::ConvolutionND* link : {&lazy, &shorthand}) {
        CHECK_FALSE(link->W.is_initialized());
        CHECK((*link)(Variable(random_array({1, 4, 3, 3}))).shape() == Shape{1, 3, 2, 2});
        CHECK(link->W.shape() == Shape{3, 4, 2, 2});
    }
}

TEST_CASE("ConvolutionND: gradients", "[links][connection]") {
    seed(3);
    L::ConvolutionND link(1, 2, 3, 2, {.pad = 1});
    link.b.array().assign(random_array({3}));
    to_float64(link);
    check_link_gradients(link, {random_array({2, 2, 3}, Dtype::kFloat64)});
}

TEST_CASE("ConvolutionND: namedparams, copy, device and NPZ round trip", "[links][connection]") {
    seed(4);
    L::ConvolutionND link(1, 2, 3, 2);
    CHECK(param_names(link) == std::vector<std::string>{"/W", "/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "b"});
    const std::vector<Array> xs{random_array({1, 2, 4})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    link.b.array().assign(random_array({3}));
    L::ConvolutionND dst(1, 3, 2);
    check_npz_round_trip(link, dst, "convolution_nd");
}

TEST_CASE("ConvolutionND: errors name the link", "[links][connection]") {
    L::ConvolutionND link(1, 2, 3, 2);
    CHECK_THROWS_WITH(link(Variable(ops::zeros({1, 3, 4}))),
                      Catch::Contains("ConvolutionND") && Catch::Contains("in_channels=2"));
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 3, 4}))), DimensionError);
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 2, 4, 4}))), DimensionError);  // 2-D input to a 1-D link
    CHECK_THROWS_AS(L::ConvolutionND(2, 2, 3, {1, 2, 3}), ValueError);
    CHECK_THROWS_AS(L::ConvolutionND(0, 2, 3, 1), ValueError);
}

TEST_CASE("DeconvolutionND: forward matches F::deconvolution_nd", "[links][connection]") {
    seed(5);
    L::DeconvolutionND link(1, 2, 3, 3, {.stride = 2});
    REQUIRE(link.W.shape() == Shape{2, 3, 3});
    link.b.array().assign(random_array({3}));
    const Variable x(random_array({2, 2, 4}));
    const Variable y = link(x);
    CHECK(y.shape() == Shape{2, 3, 9});
    check_allclose(y.array(), F::deconvolution_nd(x, link.W, link.b, {.stride = 2}).array());
    L::DeconvolutionND sized(1, 2, 3, 3, {.stride = 2, .outsize = Shape{10}});
    CHECK(sized(x).shape() == Shape{2, 3, 10});
}

TEST_CASE("DeconvolutionND: lazy in_channels, groups and the shorthand", "[links][connection]") {
    seed(6);
    L::DeconvolutionND shorthand(3, 2, 2);  // Chainer's DeconvolutionND(ndim, out_channels, ksize)
    CHECK_FALSE(shorthand.W.is_initialized());
    CHECK(shorthand(Variable(random_array({1, 3, 2, 2, 2}))).shape() == Shape{1, 2, 3, 3, 3});
    CHECK(shorthand.W.shape() == Shape{3, 2, 2, 2, 2});
    L::DeconvolutionND grouped(1, std::nullopt, 4, 1, {.groups = 2});
    CHECK(grouped(Variable(random_array({1, 2, 3}))).shape() == Shape{1, 4, 3});
    CHECK(grouped.W.shape() == Shape{2, 2, 1});
}

TEST_CASE("DeconvolutionND: gradients", "[links][connection]") {
    seed(7);
    L::DeconvolutionND link(1, 2, 3, 2, {.stride = 2, .pad = 1});
    link.b.array().assign(random_array({3}));
    to_float64(link);
    check_link_gradients(link, {random_array({1, 2, 3}, Dtype::kFloat64)});
}

TEST_CASE("DeconvolutionND: namedparams, copy, device, NPZ round trip and errors", "[links][connection]") {
    seed(8);
    L::DeconvolutionND link(1, 2, 3, 2, {.nobias = true});
    CHECK(param_names(link) == std::vector<std::string>{"/W"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W"});
    const std::vector<Array> xs{random_array({1, 2, 4})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    L::DeconvolutionND dst(1, std::nullopt, 3, 2, {.nobias = true});
    check_npz_round_trip(link, dst, "deconvolution_nd");
    CHECK_THROWS_WITH(link(Variable(ops::zeros({1, 3, 4}))),
                      Catch::Contains("DeconvolutionND") && Catch::Contains("in_channels=2"));
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 3, 4}))), DimensionError);
}
