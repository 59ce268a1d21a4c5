// L::Inception and L::InceptionBN: Chainer's child names and semantics, output shapes,
// lazy input channels, initializers, argument errors and gradients on tiny sizes.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/connection.h"
#include "functions/pooling.h"
#include "links/connection/inception.h"
#include "links/connection/inception_bn.h"
#include "links/initializers.h"
#include "serializers/npz.h"
#include "tests/links/link_check.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;
namespace I = rensa::initializers;

namespace {

std::vector<std::string> param_names(const L::Link& link) {
    std::vector<std::string> names;
    for (const auto& [name, param] : link.namedparams()) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> sorted(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<L::Parameter> all_params(const L::Link& link) { return link.params(); }

}  // namespace

TEST_CASE("Inception concatenates the four paths along the channels", "[links][inception]") {
    seed(1);
    L::Inception inc(3, 2, 2, 3, 1, 2, 2);
    const Variable x(ops::normal({1, 3, 4, 5}), false);
    const Variable y = inc(x);
    REQUIRE(y.shape() == Shape{1, 2 + 3 + 2 + 2, 4, 5});

    // Each path against the functions it is made of (order: conv1, conv3, conv5, pool).
    const Variable out1 = F::convolution_2d(x, inc.conv1->W, inc.conv1->b);
    const Variable h3 = F::relu(F::convolution_2d(x, inc.proj3->W, inc.proj3->b));
    const Variable out3 = F::convolution_2d(h3, inc.conv3->W, inc.conv3->b, {.pad = 1});
    const Variable h5 = F::relu(F::convolution_2d(x, inc.proj5->W, inc.proj5->b));
    const Variable out5 = F::convolution_2d(h5, inc.conv5->W, inc.conv5->b, {.pad = 2});
    const Variable pool =
        F::convolution_2d(F::max_pooling_2d(x, 3, {.stride = 1, .pad = 1}), inc.projp->W, inc.projp->b);
    const Variable expected = F::relu(F::concat({out1, out3, out5, pool}, 1));
    check_allclose(y.array(), expected.array());
}

TEST_CASE("Inception has Chainer's child and parameter names", "[links][inception]") {
    L::Inception inc(3, 2, 2, 3, 1, 2, 2);
    CHECK(param_names(inc) == sorted({"/conv1/W", "/conv1/b", "/proj3/W", "/proj3/b", "/conv3/W", "/conv3/b",
                                      "/proj5/W", "/proj5/b", "/conv5/W", "/conv5/b", "/projp/W", "/projp/b"}));
    CHECK(inc.conv3->W.shape() == Shape{3, 2, 3, 3});
    CHECK(inc.conv5->W.shape() == Shape{2, 1, 5, 5});
    // conv1 8 + proj3 8 + conv3 (2*3*9 + 3) 57 + proj5 4 + conv5 (1*2*25 + 2) 52 + projp 8.
    CHECK(inc.count_params() == 137);
}

TEST_CASE("Inception learns in_channels at the first forward", "[links][inception]") {
    L::Inception inc(std::nullopt, 2, 2, 3, 1, 2, 2);
    CHECK_FALSE(inc.conv1->W.is_initialized());
    CHECK(inc.count_params() == 57 + 52 + 2 + 2 + 1 + 2);  // conv3, conv5 and the biases of the lazy 1x1 convolutions
    const Variable y = inc(Variable(ops::normal({2, 3, 3, 3}), false));
    CHECK(y.shape() == Shape{2, 9, 3, 3});
    CHECK(inc.conv1->W.shape() == Shape{2, 3, 1, 1});
    CHECK(inc.count_params() == 137);
}

TEST_CASE("Inception passes conv_init and bias_init to every convolution", "[links][inception]") {
    L::Inception inc(3, 2, 2, 3, 1, 2, 2, std::make_shared<I::Constant>(0.5), std::make_shared<I::Constant>(0.25));
    for (const auto& [name, param] : inc.namedparams()) {
        INFO(name);
        const double expected = name.back() == 'W' ? 0.5 : 0.25;
        for (double v : to_doubles(param.array())) REQUIRE(v == expected);
    }
}

TEST_CASE("Inception gradients match finite differences", "[links][inception][gradient]") {
    seed(2);
    L::Inception inc(2, 1, 1, 2, 1, 1, 1, std::make_shared<I::Normal>(1.0, Dtype::kFloat64),
                     std::make_shared<I::Normal>(0.5, Dtype::kFloat64));
    const Array x = ops::normal({1, 2, 3, 3}, 0.0, 1.0, Dtype::kFloat64);
    const Array gy = ops::normal({1, 5, 3, 3}, 0.0, 1.0, Dtype::kFloat64);
    check_link_backward([&](const std::vector<Variable>& xs) { return inc(xs[0]); }, {x}, all_params(inc), gy,
                        {.eps = 1e-6, .atol = 1e-7, .rtol = 1e-6});
}

TEST_CASE("InceptionBN with a 1x1 path and a pooling projection", "[links][inception_bn]") {
    seed(3);
    L::InceptionBN inc(3, 2, 2, 3, 1, 2, "max", 4);
    const Variable y = inc(Variable(ops::normal({2, 3, 5, 4}), false));
    CHECK(y.shape() == Shape{2, 2 + 3 + 2 + 4, 5, 4});
    for (double v : to_doubles(y.array())) REQUIRE(v >= 0);  // every path ends in ReLU
    CHECK(param_names(inc) ==
          sorted({"/proj3/W",      "/conv3/W",        "/proj33/W",      "/conv33a/W",      "/conv33b/W",
                  "/proj3n/gamma", "/proj3n/beta",    "/conv3n/gamma",  "/conv3n/beta",    "/proj33n/gamma",
                  "/proj33n/beta", "/conv33an/gamma", "/conv33an/beta", "/conv33bn/gamma", "/conv33bn/beta",
                  "/conv1/W",      "/conv1n/gamma",   "/conv1n/beta",   "/poolp/W",        "/poolpn/gamma",
                  "/poolpn/beta"}));
    // Convolutions have no bias: proj3 6, conv3 54, proj33 3, conv33a 18, conv33b 36, conv1 6,
    // poolp 12; batch normalizations 2 * (2 + 3 + 1 + 2 + 2 + 2 + 4).
    CHECK(inc.count_params() == 6 + 54 + 3 + 18 + 36 + 6 + 12 + 2 * 16);
}

TEST_CASE("InceptionBN without projections pools with stride", "[links][inception_bn]") {
    seed(4);
    L::InceptionBN inc(3, 0, 2, 3, 1, 2, "avg", std::nullopt, 2);
    CHECK(inc.conv1 == nullptr);
    CHECK(inc.poolp == nullptr);
    CHECK_THROWS_AS(inc.child("conv1"), KeyError);
    CHECK_THROWS_AS(inc.child("poolpn"), KeyError);
    const Variable x(ops::normal({2, 3, 5, 4}), false);
    const Variable y = inc(x);
    // out3 + out33 + the 3 pooled input channels; (h - 1) / 2 + 1 rows and columns.
    REQUIRE(y.shape() == Shape{2, 3 + 2 + 3, 3, 2});
    // The last channels are the average pooling of x (padding counted as zeros).
    const Variable pooled = F::average_pooling_2d(x, 3, {.stride = 2, .pad = 1});
    const Variable tail = F::get_item(y, {Slice{}, Slice{5, 8}});
    check_allclose(tail.array(), pooled.array());
}

TEST_CASE("InceptionBN max pooling does not cover all", "[links][inception_bn]") {
    L::InceptionBN inc(2, 0, 1, 1, 1, 1, "max", std::nullopt, 2);
    const Variable y = inc(Variable(ops::normal({2, 2, 4, 4}), false));
    // (4 + 2 - 3) / 2 + 1 = 2 for the convolutions and the pooling (cover_all would give 3).
    CHECK(y.shape() == Shape{2, 1 + 1 + 2, 2, 2});
}

TEST_CASE("InceptionBN rejects Chainer's invalid arguments", "[links][inception_bn]") {
    CHECK_THROWS_AS(L::InceptionBN(3, 0, 2, 3, 1, 2, "min"), NotImplementedError);
    CHECK_THROWS_AS(L::InceptionBN(3, 2, 2, 3, 1, 2, "max", 4, 2), ValueError);  // out1 needs stride 1
    CHECK_THROWS_AS(L::InceptionBN(3, 2, 2, 3, 1, 2, "max"), ValueError);        // out1 needs proj_pool
}

TEST_CASE("InceptionBN gradients match finite differences", "[links][inception_bn][gradient]") {
    seed(5);
    const auto conv_init = std::make_shared<I::Normal>(1.0, Dtype::kFloat64);
    SECTION("max pooling, stride 1, all paths") {
        L::InceptionBN inc(2, 1, 1, 2, 1, 1, "max", 1, 1, conv_init, Dtype::kFloat64);
        const Array x = ops::normal({2, 2, 3, 3}, 0.0, 1.0, Dtype::kFloat64);
        const Array gy = ops::normal({2, 5, 3, 3}, 0.0, 1.0, Dtype::kFloat64);
        check_link_backward([&](const std::vector<Variable>& xs) { return inc(xs[0]); }, {x}, all_params(inc), gy,
                            {.eps = 1e-6, .atol = 1e-7, .rtol = 1e-6});
    }
    SECTION("average pooling, stride 2, no projections") {
        L::InceptionBN inc(2, 0, 1, 2, 1, 1, "avg", std::nullopt, 2, conv_init, Dtype::kFloat64);
        const Array x = ops::normal({2, 2, 4, 3}, 0.0, 1.0, Dtype::kFloat64);
        const Array gy = ops::normal({2, 5, 2, 2}, 0.0, 1.0, Dtype::kFloat64);
        check_link_backward([&](const std::vector<Variable>& xs) { return inc(xs[0]); }, {x}, all_params(inc), gy,
                            {.eps = 1e-6, .atol = 1e-7, .rtol = 1e-6});
    }
}

TEST_CASE("InceptionBN parameters and statistics survive an NPZ round trip", "[links][inception_bn][serializers]") {
    seed(6);
    L::InceptionBN a(3, 2, 2, 3, 1, 2, "max", 4);
    const Variable x(ops::normal({2, 3, 4, 4}), false);
    (void)a(x);  // training: moves avg_mean / avg_var away from their initial values
    const std::string path =
        (std::filesystem::temp_directory_path() / ("rensa_inception_bn_" + std::to_string(::getpid()) + ".npz"))
            .string();
    serializers::save_npz(path, a);
    seed(7);
    L::InceptionBN b(3, 2, 2, 3, 1, 2, "max", 4);
    serializers::load_npz(path, b);
    std::filesystem::remove(path);

    const auto pa = a.namedparams(), pb = b.namedparams();
    REQUIRE(pa.size() == pb.size());
    for (size_t i = 0; i < pa.size(); ++i) {
        INFO(pa[i].first);
        check_allclose(pb[i].second.array(), pa[i].second.array());
    }
    check_allclose(b.conv1n->avg_mean, a.conv1n->avg_mean);
    check_allclose(b.poolpn->avg_var, a.poolpn->avg_var);
    ConfigScope eval{&Config::train, false};
    check_allclose(b(x).array(), a(x).array());
}
