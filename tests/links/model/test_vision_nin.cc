// L::NIN, the Network in Network of Chainer's ImageNet example: logits on the smallest
// (199x199) input, the example's parameter names and count, and gradients.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "core/ops/reduction.h"
#include "core/random.h"
#include "functions/loss.h"
#include "links/model/vision/nin.h"

using namespace rensa;

namespace {

bool has_param(const L::Link& link, const std::string& name) {
    const auto params = link.namedparams();
    return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

int64_t conv(int64_t in, int64_t out, int64_t k) { return in * out * k * k + out; }
// MLPConvolution2D(in, (a, b, c), k): a k x k convolution then two 1x1 ones.
int64_t mlpconv(int64_t in, int64_t a, int64_t b, int64_t c, int64_t k) {
    return conv(in, a, k) + conv(a, b, 1) + conv(b, c, 1);
}

}  // namespace

TEST_CASE("NIN has the example's parameter names and count", "[links][model][nin]") {
    L::NIN model(1000);
    for (const char* name : {"/mlpconv1/0/W", "/mlpconv1/0/b", "/mlpconv1/2/W", "/mlpconv2/1/b", "/mlpconv3/0/W",
                             "/mlpconv4/2/W", "/mlpconv4/2/b"}) {
        INFO(name);
        CHECK(has_param(model, name));
    }
    const int64_t expected = mlpconv(3, 96, 96, 96, 11) + mlpconv(96, 256, 256, 256, 5) +
                             mlpconv(256, 384, 384, 384, 3) + mlpconv(384, 1024, 1024, 1000, 3);
    CHECK(expected == 7595176);
    // The first convolution of each mlpconv learns its input channels (the example's None).
    const int64_t lazy = 3 * 96 * 11 * 11 + 96 * 256 * 5 * 5 + 256 * 384 * 3 * 3 + 384 * 1024 * 3 * 3;
    CHECK(model.count_params() == expected - lazy);
    // The weights are HeNormal (MSRA): the std of mlpconv4/2/W is close to sqrt(2 / 1024).
    const Array w = model.mlpconv4->child("2").param("W").array();
    const double var = ops::mean(ops::multiply(w, w)).astype(Dtype::kFloat64).item<double>();
    CHECK(var == Approx(2.0 / 1024).epsilon(0.05));
}

TEST_CASE("NIN gives n_class logits for the smallest 199x199 image", "[links][model][nin]") {
    seed(41);
    L::NIN model(10);
    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    CHECK(model(Variable(ops::normal({1, 3, 199, 199}), false)).shape() == Shape{1, 10});
    CHECK(model.count_params() == mlpconv(3, 96, 96, 96, 11) + mlpconv(96, 256, 256, 256, 5) +
                                      mlpconv(256, 384, 384, 384, 3) + mlpconv(384, 1024, 1024, 10, 3));
    // 198x198 leaves a 5x5 map for the 6x6 average pooling.
    CHECK_THROWS_AS(model(Variable(ops::normal({1, 3, 198, 198}), false)), DimensionError);
}

TEST_CASE("NIN backward gives every parameter a grad", "[links][model][nin]") {
    seed(42);
    L::NIN model(10);
    const Variable x(ops::normal({1, 3, 199, 199}), false);
    const Variable t(Array::from_vector<int32_t>({6}, {1}), false);
    F::softmax_cross_entropy(model(x), t).backward();
    for (const auto& [name, param] : model.namedparams()) {
        INFO(name);
        REQUIRE(param.grad().defined());
        CHECK(param.grad().shape() == param.shape());
    }
}
