// L::GoogLeNet (Chainer's pretrained GoogLeNet): Chainer's layer and parameter names, the main
// and auxiliary outputs of forward(x, layers) on a 224x224 input, the NPZ round trip through
// pretrained_model, and the errors.

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "links/model/vision/googlenet.h"
#include "tests/links/model/pretrained_check.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::has_param;

TEST_CASE("GoogLeNet has Chainer's layers and parameters", "[links][model][googlenet]") {
    L::GoogLeNet model;
    CHECK(model.available_layers() ==
          std::vector<std::string>{"conv1",        "pool1",        "conv2_reduce", "conv2",        "pool2",
                                   "inception_3a", "inception_3b", "pool3",        "inception_4a", "inception_4b",
                                   "inception_4c", "inception_4d", "inception_4e", "pool4",        "inception_5a",
                                   "inception_5b", "pool5",        "loss3_fc",     "prob",         "loss1_fc2",
                                   "loss2_fc2"});
    for (const char* name : {"/conv1/W", "/conv2_reduce/b", "/inc3a/conv1/W", "/inc4e/proj5/b", "/inc5b/projp/W",
                             "/loss3_fc/W", "/loss1_conv/W", "/loss1_fc2/b", "/loss2_fc1/W"}) {
        INFO(name);
        CHECK(has_param(model, name));
    }
    CHECK(rensa::testing::param_size(model) == 13378280);  // Chainer's GoogLeNet
    CHECK_THROWS_WITH(model.forward(Variable(ops::normal({1, 3, 8, 8}), false), {"fc8"}),
                      Catch::Contains("GoogLeNet: Expect: layers in available_layers"));
}

TEST_CASE("GoogLeNet forward gives the main and auxiliary outputs", "[links][model][googlenet]") {
    seed(8);
    L::GoogLeNet model;
    rensa::testing::TempNpz file("googlenet");
    serializers::save_npz(file.path.string(), model);
    L::GoogLeNet loaded(file.path.string());
    const auto saved = model.namedparams();
    const auto read = loaded.namedparams();
    REQUIRE(saved.size() == read.size());
    for (size_t i = 0; i < saved.size(); ++i) {
        INFO(saved[i].first);
        REQUIRE(read[i].first == saved[i].first);
        rensa::testing::check_allclose(read[i].second.array(), saved[i].second.array());
    }

    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    const Variable x(ops::normal({1, 3, 224, 224}), false);
    const auto out = loaded.forward(x, {"pool1", "inception_4a", "pool5", "prob", "loss1_fc2", "loss2_fc2"});
    REQUIRE(out.size() == 6);
    CHECK(out.at("pool1").shape() == Shape{1, 64, 56, 56});
    CHECK(out.at("inception_4a").shape() == Shape{1, 512, 14, 14});
    CHECK(out.at("pool5").shape() == Shape{1, 1024, 1, 1});
    CHECK(out.at("prob").shape() == Shape{1, 1000});
    CHECK(out.at("loss1_fc2").shape() == Shape{1, 1000});
    CHECK(out.at("loss2_fc2").shape() == Shape{1, 1000});
}

TEST_CASE("GoogLeNet checks pretrained_model before allocating", "[links][model][googlenet]") {
    CHECK_THROWS_WITH(L::GoogLeNet("auto"), Catch::Contains("GoogLeNet: pretrained_model='auto'"));
    CHECK_THROWS_AS(L::GoogLeNet("nothing_here.npz"), IOError);
}
