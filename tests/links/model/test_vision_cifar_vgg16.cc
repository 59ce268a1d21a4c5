// L::CifarVGG16, the VGG of Chainer's CIFAR example: logits on the smallest (32x32) input,
// the example's parameter names and count, and gradients for every parameter.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/loss.h"
#include "links/model/vision/cifar_vgg16.h"

using namespace rensa;

namespace {

bool has_param(const L::Link& link, const std::string& name) {
    const auto params = link.namedparams();
    return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

int64_t conv_bn_block(int64_t in, int64_t out) { return in * out * 9 + 2 * out; }  // no conv bias

}  // namespace

TEST_CASE("CifarVGG16 gives class_labels logits for a 32x32 image", "[links][model][vgg16]") {
    seed(11);
    L::CifarVGG16 model(10);
    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    const Variable y = model(Variable(ops::normal({1, 3, 32, 32}), false));
    CHECK(y.shape() == Shape{1, 10});
    // Greyscale input and CIFAR-100 labels.
    L::CifarVGG16 grey(100);
    CHECK(grey(Variable(ops::normal({1, 1, 32, 32}), false)).shape() == Shape{1, 100});
}

TEST_CASE("CifarVGG16 has the example's parameter names and count", "[links][model][vgg16]") {
    L::CifarVGG16 model;
    for (const char* name : {"/block1_1/conv/W", "/block1_1/bn/gamma", "/block1_1/bn/beta", "/block3_3/conv/W",
                             "/block5_3/bn/beta", "/fc1/W", "/bn_fc1/gamma", "/fc2/W"}) {
        INFO(name);
        CHECK(has_param(model, name));
    }
    CHECK_FALSE(has_param(model, "/block1_1/conv/b"));  // nobias=True
    CHECK_FALSE(has_param(model, "/fc1/b"));
    CHECK_FALSE(has_param(model, "/fc2/b"));
    CHECK(model.children().size() == 16);

    // Lazy convolutions and Linear layers: count once the sizes are known.
    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    (void)model(Variable(ops::normal({1, 3, 32, 32}), false));
    int64_t expected = 0;
    int64_t in = 3;
    for (int64_t out : {64, 64, 128, 128, 256, 256, 256, 512, 512, 512, 512, 512, 512}) {
        expected += conv_bn_block(in, out);
        in = out;
    }
    expected += 512 * 512 + 2 * 512 + 512 * 10;  // fc1, bn_fc1, fc2
    CHECK(expected == 14987200);
    CHECK(model.count_params() == expected);
}

TEST_CASE("CifarVGG16 backward gives every parameter a grad", "[links][model][vgg16]") {
    seed(12);
    L::CifarVGG16 model(10);
    const Variable x(ops::normal({2, 3, 32, 32}), false);
    const Variable t(Array::from_vector<int32_t>({3, 7}, {2}), false);
    const Variable loss = F::softmax_cross_entropy(model(x), t);
    loss.backward();
    for (const auto& [name, param] : model.namedparams()) {
        INFO(name);
        REQUIRE(param.grad().defined());
        CHECK(param.grad().shape() == param.shape());
    }
}
