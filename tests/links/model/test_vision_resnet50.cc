// L::ResNet50 of Chainer's ImageNet example: logits on the smallest (32x32) input, the
// example's parameter names and count, and gradients for every parameter.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/loss.h"
#include "links/model/vision/resnet50.h"

using namespace rensa;

namespace {

bool has_param(const L::Link& link, const std::string& name) {
    const auto params = link.namedparams();
    return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

int64_t conv(int64_t in, int64_t out, int64_t k) { return in * out * k * k; }  // nobias=True
int64_t bn(int64_t c) { return 2 * c; }

// BottleNeckA(in, ch, out) and BottleNeckB(out, ch) as in the example.
int64_t bottleneck_a(int64_t in, int64_t ch, int64_t out) {
    return conv(in, ch, 1) + bn(ch) + conv(ch, ch, 3) + bn(ch) + conv(ch, out, 1) + bn(out) + conv(in, out, 1) +
           bn(out);
}
int64_t bottleneck_b(int64_t in, int64_t ch) {
    return conv(in, ch, 1) + bn(ch) + conv(ch, ch, 3) + bn(ch) + conv(ch, in, 1) + bn(in);
}
int64_t block(int layer, int64_t in, int64_t ch, int64_t out) {
    return bottleneck_a(in, ch, out) + (layer - 1) * bottleneck_b(out, ch);
}

}  // namespace

TEST_CASE("ResNet50 gives n_class logits down to a 32x32 image", "[links][model][resnet50]") {
    seed(21);
    L::ResNet50 model(7);
    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    CHECK(model(Variable(ops::normal({1, 3, 32, 32}), false)).shape() == Shape{1, 7});
    CHECK(model(Variable(ops::normal({2, 3, 40, 48}), false)).shape() == Shape{2, 7});
}

TEST_CASE("ResNet50 has the example's parameter names and count", "[links][model][resnet50]") {
    L::ResNet50 model;
    for (const char* name : {"/conv1/W", "/conv1/b", "/bn1/gamma", "/bn1/beta", "/res2/0/conv1/W", "/res2/0/bn1/gamma",
                             "/res2/0/conv4/W", "/res2/0/bn4/beta", "/res2/2/conv3/W", "/res3/3/bn3/gamma",
                             "/res4/5/conv2/W", "/res5/2/bn3/beta", "/fc/W", "/fc/b"}) {
        INFO(name);
        CHECK(has_param(model, name));
    }
    CHECK_FALSE(has_param(model, "/res2/0/conv1/b"));  // nobias=True in the bottlenecks
    CHECK_FALSE(has_param(model, "/res2/1/conv4/W"));  // BottleNeckB has no projection
    CHECK(model.res2->size() == 3);
    CHECK(model.res3->size() == 4);
    CHECK(model.res4->size() == 6);
    CHECK(model.res5->size() == 3);
    // The stride of a BottleNeckA is on its 3x3 convolution (the example's downsample_fb=False).
    const Variable y = (*model.res3)(Variable(ops::normal({1, 256, 8, 8}), false));
    CHECK(y.shape() == Shape{1, 512, 4, 4});

    const int64_t expected = conv(3, 64, 7) + 64 + bn(64) + block(3, 64, 64, 256) + block(4, 256, 128, 512) +
                             block(6, 512, 256, 1024) + block(3, 1024, 512, 2048) + 2048 * 1000 + 1000;
    CHECK(expected == 25557096);
    CHECK(model.count_params() == expected);  // every size is given: nothing is lazy
}

TEST_CASE("ResNet50 backward gives every parameter a grad", "[links][model][resnet50]") {
    seed(22);
    L::ResNet50 model(5);
    const Variable x(ops::normal({2, 3, 32, 32}), false);
    const Variable t(Array::from_vector<int32_t>({1, 4}, {2}), false);
    F::softmax_cross_entropy(model(x), t).backward();
    for (const auto& [name, param] : model.namedparams()) {
        INFO(name);
        REQUIRE(param.grad().defined());
        CHECK(param.grad().shape() == param.shape());
    }
}
