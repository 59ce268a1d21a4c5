// L::ResNetLayers (Chainer's ResNet50Layers / 101 / 152) and its blocks: Chainer's layer
// names and parameter names, forward(x, layers) on a small input, the NPZ round trip through
// pretrained_model, and the errors (bad n_layers, unknown layer, missing file, "auto").

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "links/model/vision/resnet.h"
#include "tests/links/model/pretrained_check.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::has_param;

// Each ResNet allocates tens of millions of parameters: the tests build as few as they can.
TEST_CASE("ResNetLayers has Chainer's layers and parameter names", "[links][model][resnet]") {
    L::ResNetLayers model("", 50);
    CHECK(model.available_layers() ==
          std::vector<std::string>{"conv1", "pool1", "res2", "res3", "res4", "res5", "pool5", "fc6", "prob"});
    for (const char* name :
         {"/conv1/W", "/conv1/b", "/bn1/gamma", "/bn1/beta", "/res2/a/conv1/W", "/res2/a/conv4/W", "/res2/a/bn4/beta",
          "/res2/b2/conv3/W", "/res3/b3/bn3/gamma", "/res4/b5/conv2/W", "/res5/b2/bn3/beta", "/fc6/W", "/fc6/b"}) {
        INFO(name);
        CHECK(has_param(model, name));
    }
    CHECK_FALSE(has_param(model, "/res2/a/conv1/b"));   // nobias=True in the bottlenecks
    CHECK_FALSE(has_param(model, "/res2/b3/conv1/W"));  // res2 has a, b1, b2
    CHECK(model.res4->children().size() == 6);
    CHECK(model.fc6->W.array().shape() == Shape{1000, 2048});
    // Chainer's ResNet50Layers (conv1 has a bias there).
    CHECK(rensa::testing::param_size(model) == 25557096);

    const Variable x(ops::normal({1, 3, 32, 32}), false);
    CHECK_THROWS_AS(model.forward(x, {"res6"}), ValueError);
    CHECK_THROWS_WITH(model.forward(x, {"res6"}),
                      Catch::Contains("ResNet50Layers: Expect: layers in available_layers (conv1, pool1, res2, res3, "
                                      "res4, res5, pool5, fc6, prob), Actual: 'res6'"));
}

TEST_CASE("ResNetLayers with 101 layers stacks Chainer's block counts", "[links][model][resnet]") {
    // 152 layers differ only in the counts of res3 (8) and res4 (36): the same table.
    L::ResNetLayers r101("", 101);
    CHECK(r101.name() == "ResNet101Layers");
    CHECK(r101.res3->children().size() == 4);
    CHECK(r101.res4->children().size() == 23);
    CHECK(has_param(r101, "/res4/b22/bn3/gamma"));
}

TEST_CASE("ResNetLayers forward returns the requested layers and loads its NPZ", "[links][model][resnet]") {
    seed(3);
    L::ResNetLayers model("", 50, /*downsample_fb=*/true);
    rensa::testing::TempNpz file("resnet50");
    serializers::save_npz(file.path.string(), model);
    L::ResNetLayers loaded(file.path.string(), 50, true);

    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    const Variable x(ops::normal({2, 3, 64, 64}), false);
    const auto out = model.forward(x, {"conv1", "pool1", "res3", "res5", "pool5", "prob"});
    REQUIRE(out.size() == 6);
    CHECK(out.at("conv1").shape() == Shape{2, 64, 32, 32});
    CHECK(out.at("pool1").shape() == Shape{2, 64, 16, 16});  // cover_all, as Chainer's max_pooling_2d
    CHECK(out.at("res3").shape() == Shape{2, 512, 8, 8});
    CHECK(out.at("res5").shape() == Shape{2, 2048, 2, 2});
    CHECK(out.at("pool5").shape() == Shape{2, 2048});
    CHECK(out.at("prob").shape() == Shape{2, 1000});
    rensa::testing::check_allclose(loaded(x).array(), out.at("prob").array());
}

TEST_CASE("ResNetLayers errors name the model and what to pass", "[links][model][resnet]") {
    // Checked before any parameter is allocated.
    CHECK_THROWS_WITH(L::ResNetLayers("", 34),
                      Catch::Contains("ResNetLayers: Expect: n_layers in (50, 101, 152), Actual: n_layers = 34"));
    CHECK_THROWS_AS(L::ResNetLayers("", 34), ValueError);
    CHECK_THROWS_AS(L::ResNetLayers("no/such/file.npz", 50), IOError);
    CHECK_THROWS_WITH(L::ResNetLayers("no/such/file.npz", 152),
                      Catch::Contains("ResNet152Layers: pretrained_model 'no/such/file.npz' does not exist"));
    CHECK_THROWS_WITH(L::ResNetLayers("auto", 50), Catch::Contains("ResNet50Layers: pretrained_model='auto'"));
    CHECK_THROWS_WITH(L::resnet::BuildingBlock(0, 4, 2, 8, 1), Catch::Contains("BuildingBlock: Expect: n_layers >= 1"));
}

TEST_CASE("BuildingBlock names its bottlenecks a, b1, b2 and keeps the shape", "[links][model][resnet]") {
    seed(5);
    L::resnet::BuildingBlock block(3, 4, 2, 8, 2);
    CHECK(has_param(block, "/a/conv4/W"));
    CHECK(has_param(block, "/b2/conv1/W"));
    CHECK_FALSE(has_param(block, "/b3/conv1/W"));
    const Variable y = block(Variable(ops::normal({2, 4, 6, 6}), false));
    CHECK(y.shape() == Shape{2, 8, 3, 3});
    L::resnet::BottleneckB b(8, 2);
    CHECK(b(y).shape() == y.shape());
}
