// L::VGGLayers (Chainer's VGG16Layers / VGG19Layers): Chainer's layer and parameter names,
// forward(x, layers) of the convolution layers on a small input (fc6 needs 224x224), and the
// errors. The NPZ round trip (2 x 553 MB) is the shared code that ResNetLayers and GoogLeNet
// test with smaller files.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "links/model/vision/vgg.h"
#include "tests/links/model/pretrained_check.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::has_param;

TEST_CASE("VGGLayers has Chainer's layers and parameters", "[links][model][vgg]") {
    seed(6);
    L::VGGLayers vgg16("", 16);
    const std::vector<std::string> layers16{"conv1_1", "conv1_2", "pool1",   "conv2_1", "conv2_2", "pool2",
                                            "conv3_1", "conv3_2", "conv3_3", "pool3",   "conv4_1", "conv4_2",
                                            "conv4_3", "pool4",   "conv5_1", "conv5_2", "conv5_3", "pool5",
                                            "fc6",     "fc7",     "fc8",     "prob"};
    CHECK(vgg16.available_layers() == layers16);
    CHECK(rensa::testing::param_size(vgg16) == 138357544);  // Chainer's VGG16Layers
    CHECK(has_param(vgg16, "/conv5_3/b"));
    CHECK_FALSE(has_param(vgg16, "/conv3_4/W"));
    CHECK(vgg16.fc6->W.array().shape() == Shape{4096, 25088});

    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    const Variable x(ops::normal({2, 3, 32, 32}), false);
    const auto out = vgg16.forward(x, {"conv1_1", "pool1", "conv3_3", "pool5"});
    REQUIRE(out.size() == 4);
    CHECK(out.at("conv1_1").shape() == Shape{2, 64, 32, 32});
    CHECK(out.at("pool1").shape() == Shape{2, 64, 16, 16});
    CHECK(out.at("conv3_3").shape() == Shape{2, 256, 8, 8});
    CHECK(out.at("pool5").shape() == Shape{2, 512, 1, 1});
}

TEST_CASE("VGGLayers with 19 layers adds conv3_4, conv4_4, conv5_4", "[links][model][vgg]") {
    L::VGGLayers vgg19("", 19);
    CHECK(vgg19.name() == "VGG19Layers");
    const auto layers = vgg19.available_layers();
    CHECK(layers.size() == 25);
    CHECK(layers[9] == "conv3_4");
    CHECK(layers[10] == "pool3");
    CHECK(has_param(vgg19, "/conv5_4/W"));
    CHECK(rensa::testing::param_size(vgg19) == 143667240);  // Chainer's VGG19Layers
}

TEST_CASE("VGGLayers checks its arguments before allocating", "[links][model][vgg]") {
    CHECK_THROWS_WITH(L::VGGLayers("", 17),
                      Catch::Contains("VGGLayers: Expect: n_layers in (16, 19), Actual: n_layers = 17"));
    CHECK_THROWS_AS(L::VGGLayers("missing.npz", 16), IOError);
    CHECK_THROWS_WITH(L::VGGLayers("missing.npz", 19),
                      Catch::Contains("VGG19Layers: pretrained_model 'missing.npz' does not exist"));
    CHECK_THROWS_WITH(L::VGGLayers("auto", 16), Catch::Contains("VGG16Layers: pretrained_model='auto'"));
}
