// MLPConvolution2D: the chain of convolutions, lazy in_channels, gradients, copies, devices,
// serialization and errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "links/connection/mlp_convolution_2d.h"
#include "links/initializers.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {
L::Convolution2D& conv(L::MLPConvolution2D& link, int64_t i) { return dynamic_cast<L::Convolution2D&>(link[i]); }
}  // namespace

TEST_CASE("MLPConvolution2D: forward matches the chain of convolutions", "[links][connection]") {
    seed(0);
    L::MLPConvolution2D link(3, {4, 5}, 3, {.pad = 1});
    REQUIRE(link.size() == 2);
    CHECK(conv(link, 0).W.shape() == Shape{4, 3, 3, 3});
    CHECK(conv(link, 1).W.shape() == Shape{5, 4, 1, 1});
    conv(link, 0).b.array().assign(random_array({4}));
    const Variable x(random_array({1, 3, 4, 4}));
    const Variable h = F::relu(F::convolution_2d(x, conv(link, 0).W, conv(link, 0).b, {.pad = 1}));
    const Variable expected = F::convolution_2d(h, conv(link, 1).W, conv(link, 1).b);
    const Variable y = link(x);
    CHECK(y.shape() == Shape{1, 5, 4, 4});
    check_allclose(y.array(), expected.array());
}

TEST_CASE("MLPConvolution2D: lazy in_channels, the shorthand and options", "[links][connection]") {
    seed(1);
    L::MLPConvolution2D link({2, 3, 2}, 2,
                             {.stride = 2,
                              .activation = [](const Variable& v) { return F::sigmoid(v); },
                              .bias_init = initializers::constant(0.5)});
    REQUIRE(link.size() == 3);
    CHECK_FALSE(conv(link, 0).W.is_initialized());
    CHECK(link(Variable(random_array({1, 4, 4, 4}))).shape() == Shape{1, 2, 2, 2});
    CHECK(conv(link, 0).W.shape() == Shape{2, 4, 2, 2});
    check_allclose(conv(link, 2).b.array(), {0.5, 0.5}, {2}, {0.0, 0.0});
}

TEST_CASE("MLPConvolution2D: gradients", "[links][connection]") {
    seed(2);
    L::MLPConvolution2D link(2, {3, 2}, 2, {.activation = [](const Variable& v) { return F::tanh(v); }});
    to_float64(link);
    check_link_gradients(link, {random_array({1, 2, 3, 3}, Dtype::kFloat64)});
}

TEST_CASE("MLPConvolution2D: namedparams, copy, device, NPZ round trip and errors", "[links][connection]") {
    seed(3);
    L::MLPConvolution2D link(2, {3, 2}, 1);
    CHECK(param_names(link) == std::vector<std::string>{"/0/W", "/0/b", "/1/W", "/1/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"0/W", "0/b", "1/W", "1/b"});
    const std::vector<Array> xs{random_array({1, 2, 2, 2})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    L::MLPConvolution2D dst({3, 2}, 1);
    check_npz_round_trip(link, dst, "mlp_convolution_2d");
    CHECK_THROWS_WITH(link(Variable(ops::zeros({1, 3, 2, 2}))), Catch::Contains("Convolution2D"));
    CHECK_THROWS_AS(L::MLPConvolution2D(2, {}, 1), ValueError);
}
