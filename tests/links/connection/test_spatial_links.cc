// The links of issue 23's spatial part: LocalConvolution2D, DeformableConvolution2D (Chainer's
// offset_conv / deform_conv children), DilatedConvolution2D, Convolution1D / 3D and
// Deconvolution1D / 3D: forward against their functions, lazy shapes, gradients, copies,
// NPZ keys and round trips, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/convolution_variants.h"
#include "links/connection/deformable_convolution_2d.h"
#include "links/connection/local_convolution_2d.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("LocalConvolution2D: forward, lazy shapes and stride", "[links][connection]") {
    seed(0);
    L::LocalConvolution2D link(2, 3, {{4, 5}}, 3);
    REQUIRE(link.W.shape() == Shape{3, 2, 3, 2, 3, 3});
    REQUIRE(link.b.shape() == Shape{3, 2, 3});
    link.b.array().assign(random_array({3, 2, 3}));
    const Variable x(random_array({2, 2, 4, 5}));
    check_allclose(link(x).array(), F::local_convolution_2d(x, link.W, link.b).array());
    L::LocalConvolution2D lazy(std::nullopt, 3, std::nullopt, {2, 3}, {.stride = 2, .nobias = true});
    CHECK_FALSE(lazy.W.is_initialized());
    CHECK(lazy(Variable(random_array({1, 2, 5, 7}))).shape() == Shape{1, 3, 2, 3});
    CHECK(lazy.W.shape() == Shape{3, 2, 3, 2, 2, 3});
    CHECK(param_names(lazy) == std::vector<std::string>{"/W"});
}

TEST_CASE("LocalConvolution2D: gradients, copy, device, NPZ round trip and errors", "[links][connection]") {
    seed(1);
    L::LocalConvolution2D link(2, 2, 3, 2);
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "b"});
    link.b.array().assign(random_array({2, 2, 2}));
    const std::vector<Array> xs{random_array({2, 2, 3, 3})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    L::LocalConvolution2D dst(2, 2, 3, 2);
    check_npz_round_trip(link, dst, "local_convolution_2d");
    to_float64(link);
    check_link_gradients(link, {random_array({2, 2, 3, 3}, Dtype::kFloat64)});
    CHECK_THROWS_WITH(link(Variable(ops::zeros({1, 2, 4, 4}))),
                      Catch::Contains("LocalConvolution2D") && Catch::Contains("W was made for 2 x 2"));
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 3, 3, 3}))), DimensionError);
    CHECK_THROWS_AS(L::LocalConvolution2D(2, 2, 1, 2), ValueError);  // image smaller than the window
    CHECK_THROWS_AS(L::LocalConvolution2D(2, 2, 3, 0), ValueError);
}

TEST_CASE("DeformableConvolution2D: children, Chainer's initial values and forward", "[links][connection]") {
    seed(2);
    L::DeformableConvolution2D link(2, 3, {2, 3}, {.pad = 1});
    CHECK(param_names(link) ==
          std::vector<std::string>{"/offset_conv/W", "/offset_conv/b", "/deform_conv/W", "/deform_conv/b"});
    CHECK(link.offset_conv->W.shape() == Shape{12, 2, 2, 3});
    CHECK(link.deform_conv->W.shape() == Shape{3, 2, 2, 3});
    // Chainer's DeformableConvolution2DSampler starts with W = 0.
    check_allclose(link.deform_conv->W.array(), std::vector<double>(36, 0.0), {3, 2, 2, 3}, {0, 0});
    link.deform_conv->W.array().assign(random_array({3, 2, 2, 3}));
    link.deform_conv->b.array().assign(random_array({3}));
    const Variable x(random_array({2, 2, 4, 5}));
    const Variable offset = (*link.offset_conv)(x);
    CHECK(offset.shape() == Shape{2, 12, 5, 5});
    check_allclose(
        link(x).array(),
        F::deformable_convolution_2d_sampler(x, offset, link.deform_conv->W, link.deform_conv->b, 1, 1).array());
}

TEST_CASE("DeformableConvolution2D: lazy, gradients, copy, NPZ round trip and errors", "[links][connection]") {
    seed(3);
    L::DeformableConvolution2D lazy(std::nullopt, 2, 2, {.stride = 2, .deform_nobias = true});
    CHECK(lazy(Variable(random_array({1, 3, 5, 5}))).shape() == Shape{1, 2, 2, 2});
    CHECK(lazy.deform_conv->W.shape() == Shape{2, 3, 2, 2});
    CHECK(serialized_keys(lazy) == std::vector<std::string>{"offset_conv/W", "offset_conv/b", "deform_conv/W"});
    L::DeformableConvolution2D link(2, 2, 2);
    // Small offsets keep the samples off pixel boundaries for the numerical gradients.
    link.offset_conv->W.array().assign(ops::multiply(random_array({8, 2, 2, 2}), 0.05));
    link.offset_conv->b.array().assign(ops::add(ops::multiply(random_array({8}), 0.1), 0.3));
    link.deform_conv->W.array().assign(random_array({2, 2, 2, 2}));
    const std::vector<Array> xs{random_array({1, 2, 3, 3})};
    check_copy_shares_arrays(link, xs);
    L::DeformableConvolution2D dst(2, 2, 2);
    check_npz_round_trip(link, dst, "deformable_convolution_2d");
    to_float64(link);
    check_link_gradients(link, {random_array({1, 2, 3, 3}, Dtype::kFloat64)});
    CHECK_THROWS_AS(link(Variable(ops::zeros({1, 3, 3, 3}))), DimensionError);
    CHECK_THROWS_WITH((*link.deform_conv)(Variable(ops::zeros({1, 2, 3, 3}))),
                      Catch::Contains("DeformableConvolution2DSampler: Expect: two inputs"));
}

TEST_CASE("DilatedConvolution2D, Convolution1D/3D, Deconvolution1D/3D are their base links", "[links][connection]") {
    seed(4);
    L::DilatedConvolution2D dilated(2, 3, 3, {.pad = 2, .dilate = 2});
    const Variable x2(random_array({1, 2, 5, 5}));
    CHECK(param_names(dilated) == std::vector<std::string>{"/W", "/b"});
    check_allclose(dilated(x2).array(),
                   F::dilated_convolution_2d(x2, dilated.W, dilated.b, {.pad = 2, .dilate = 2}).array());
    L::Convolution1D c1(2, 3, 2, {.stride = 2});
    const Variable x1(random_array({2, 2, 6}));
    check_allclose(c1(x1).array(), F::convolution_nd(x1, c1.W, c1.b, {.stride = 2}).array());
    L::Convolution3D c3(std::nullopt, 2, 2);
    const Variable x3(random_array({1, 2, 3, 3, 3}));
    CHECK(c3(x3).shape() == Shape{1, 2, 2, 2, 2});
    CHECK(c3.ndim() == 3);
    L::Deconvolution1D d1(2, 3, 3, {.stride = 2});
    CHECK(d1.W.shape() == Shape{2, 3, 3});
    check_allclose(d1(x1).array(), F::deconvolution_nd(x1, d1.W, d1.b, {.stride = 2}).array());
    L::Deconvolution3D d3(2, 1, 2, {.nobias = true});
    CHECK(d3(x3).shape() == Shape{1, 1, 4, 4, 4});
    CHECK(param_names(d3) == std::vector<std::string>{"/W"});
    // Copies keep the most derived class (Note [Link copies]) and share the arrays.
    check_copy_shares_arrays(c1, {random_array({1, 2, 4})});
    CHECK(dynamic_cast<L::Convolution1D*>(c1.copy().get()) != nullptr);
    CHECK_THROWS_AS(c1(x2), DimensionError);  // 2-D input to a 1-D link
    CHECK_THROWS_AS(L::Convolution3D(2, 2, {1, 2}), ValueError);
}
