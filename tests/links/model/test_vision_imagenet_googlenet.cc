// L::ImageNetGoogLeNet of Chainer's ImageNet example: the registered links, logits on the
// example's 224x224 input (the smallest is 223), and the training loss with the two
// auxiliary classifiers, its reports and gradients.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "core/reporter.h"
#include "links/model/vision/imagenet_googlenet.h"

using namespace rensa;

namespace {

bool has_param(const L::Link& link, const std::string& name) {
    const auto params = link.namedparams();
    return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

int64_t conv(int64_t in, int64_t out, int64_t k) { return in * out * k * k + out; }
int64_t linear(int64_t in, int64_t out) { return in * out + out; }

// The example's Inception configurations (out1, proj3, out3, proj5, out5, proj_pool).
const std::vector<std::vector<int64_t>> kInceptions = {
    {64, 96, 128, 16, 32, 32},     {128, 128, 192, 32, 96, 64},   {192, 96, 208, 16, 48, 64},
    {160, 112, 224, 24, 64, 64},   {128, 128, 256, 24, 64, 64},   {112, 144, 288, 32, 64, 64},
    {256, 160, 320, 32, 128, 128}, {256, 160, 320, 32, 128, 128}, {384, 192, 384, 48, 128, 128}};

// Parameters of the main path (conv1 .. loss3_fc) for RGB 224x224 input; channels_after[i]
// receives the output channels of the i-th Inception.
int64_t main_path_params(int64_t n_class, std::vector<int64_t>& channels_after) {
    int64_t n = conv(3, 64, 7) + conv(64, 64, 1) + conv(64, 192, 3);
    int64_t in = 192;
    for (const auto& c : kInceptions) {
        n += conv(in, c[0], 1) + conv(in, c[1], 1) + conv(c[1], c[2], 3) + conv(in, c[3], 1) + conv(c[3], c[4], 5) +
             conv(in, c[5], 1);
        in = c[0] + c[2] + c[4] + c[5];
        channels_after.push_back(in);
    }
    return n + linear(in, n_class);  // 7x7 average pooling leaves 1024 x 1 x 1
}

// An auxiliary classifier on a 14x14 map of `in` channels: 5x5/3 pooling leaves 4x4.
int64_t auxiliary_params(int64_t in, int64_t n_class) {
    return conv(in, 128, 1) + linear(128 * 4 * 4, 1024) + linear(1024, n_class);
}

}  // namespace

TEST_CASE("ImageNetGoogLeNet registers the example's links", "[links][model][googlenet]") {
    L::ImageNetGoogLeNet model;
    CHECK(model.children().size() == 19);
    for (const char* name : {"/conv1/W", "/conv2_reduce/b", "/conv2/W", "/inc3a/conv1/W", "/inc4e/conv5/W",
                             "/inc5b/projp/b", "/loss3_fc/W", "/loss1_conv/W", "/loss1_fc1/W", "/loss1_fc2/b",
                             "/loss2_conv/b", "/loss2_fc1/b", "/loss2_fc2/W"}) {
        INFO(name);
        CHECK(has_param(model, name));
    }
    CHECK_FALSE(model.loss1_fc1->W.is_initialized());  // the example's None input sizes
    CHECK(model.inc4a->conv3->W.shape() == Shape{208, 96, 3, 3});
    CHECK_THROWS_AS(model.forward(std::vector<Variable>{}), ValueError);
}

TEST_CASE("ImageNetGoogLeNet gives the main logits for a 224x224 image", "[links][model][googlenet]") {
    seed(51);
    L::ImageNetGoogLeNet model;
    ConfigScope eval{&Config::train, false};
    NoBackpropMode no_graph;
    CHECK(model(Variable(ops::normal({1, 3, 224, 224}), false)).shape() == Shape{1, 1000});
    std::vector<int64_t> channels;
    const int64_t main = main_path_params(1000, channels);
    CHECK(main == 6998552);
    // The auxiliary classifiers did not run: only their biases (sizes known) count.
    CHECK(model.count_params() == main + 2 * (128 + 1024 + 1000));
}

TEST_CASE("ImageNetGoogLeNet training loss adds the auxiliary losses and reports them", "[links][model][googlenet]") {
    seed(52);
    L::ImageNetGoogLeNet model(10);
    Reporter reporter;
    reporter.add_observer("main", &model);
    Observation observation;
    const Variable x(ops::normal({2, 3, 224, 224}), false);
    const Variable t(Array::from_vector<int32_t>({3, 8}, {2}), false);
    Variable loss;
    {
        ReporterScope scope(reporter, observation);
        loss = model(x, t);
    }
    for (const char* key : {"main/loss", "main/loss1", "main/loss2", "main/loss3", "main/accuracy"}) {
        INFO(key);
        REQUIRE(observation.count(key) == 1);
    }
    const auto value = [&](const char* key) { return observation.at(key).astype(Dtype::kFloat64).item<double>(); };
    CHECK(loss.array().astype(Dtype::kFloat64).item<double>() ==
          Approx(0.3 * (value("main/loss1") + value("main/loss2")) + value("main/loss3")));
    CHECK(value("main/loss") == Approx(loss.array().astype(Dtype::kFloat64).item<double>()));

    loss.backward();
    for (const auto& [name, param] : model.namedparams()) {
        INFO(name);
        REQUIRE(param.grad().defined());
    }
    std::vector<int64_t> channels;
    const int64_t expected =
        main_path_params(10, channels) + auxiliary_params(channels[2], 10) + auxiliary_params(channels[5], 10);
    CHECK(main_path_params(1000, channels) + auxiliary_params(512, 1000) + auxiliary_params(528, 1000) == 13378280);
    CHECK(model.count_params() == expected);
}
