// L::Alex, the AlexNet of Chainer's ImageNet example: logits on the smallest (39x39) and
// the example's (227x227) input, parameter names and counts, and gradients.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/loss.h"
#include "links/model/vision/alexnet.h"

using namespace rensa;

namespace {

bool has_param(const L::Link& link, const std::string& name) {
    const auto params = link.namedparams();
    return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

int64_t conv(int64_t in, int64_t out, int64_t k) { return in * out * k * k + out; }
int64_t linear(int64_t in, int64_t out) { return in * out + out; }
// conv1 .. conv5 on RGB input.
int64_t conv_params() {
    return conv(3, 96, 11) + conv(96, 256, 5) + conv(256, 384, 3) + conv(384, 384, 3) + conv(384, 256, 3);
}

}  // namespace

TEST_CASE("Alex on the smallest 39x39 image has the example's names and count", "[links][model][alexnet]") {
    seed(31);
    L::Alex model(10);
    for (const char* name : {"/conv1/W", "/conv1/b", "/conv2/W", "/conv3/W", "/conv4/W", "/conv5/b", "/fc6/W", "/fc7/b",
                             "/fc8/W", "/fc8/b"}) {
        INFO(name);
        CHECK(has_param(model, name));
    }
    CHECK(model.children().size() == 8);
    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    CHECK(model(Variable(ops::normal({1, 3, 39, 39}), false)).shape() == Shape{1, 10});
    CHECK(model.fc6->W.shape() == Shape{4096, 256});  // the last pooling gives 256 x 1 x 1
    CHECK(model.count_params() == conv_params() + linear(256, 4096) + linear(4096, 4096) + linear(4096, 10));
    // 38x38 leaves a 1x1 map for the last 3x3 pooling (Chainer's output size 0).
    CHECK_THROWS_AS(model(Variable(ops::normal({1, 3, 38, 38}), false)), DimensionError);
}

TEST_CASE("Alex on the example's 227x227 input has 62378344 parameters", "[links][model][alexnet][.slow]") {
    seed(33);
    L::Alex model;
    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    CHECK(model(Variable(ops::normal({1, 3, 227, 227}), false)).shape() == Shape{1, 1000});
    CHECK(model.fc6->W.shape() == Shape{4096, 256 * 6 * 6});
    const int64_t expected = conv_params() + linear(256 * 6 * 6, 4096) + linear(4096, 4096) + linear(4096, 1000);
    CHECK(expected == 62378344);
    CHECK(model.count_params() == expected);
}

TEST_CASE("Alex backward gives every parameter a grad", "[links][model][alexnet]") {
    seed(34);
    L::Alex model(10);
    const Variable x(ops::normal({2, 3, 39, 39}), false);
    const Variable t(Array::from_vector<int32_t>({2, 9}, {2}), false);
    F::softmax_cross_entropy(model(x), t).backward();
    for (const auto& [name, param] : model.namedparams()) {
        INFO(name);
        REQUIRE(param.grad().defined());
        CHECK(param.grad().shape() == param.shape());
    }
}
