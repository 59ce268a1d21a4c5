#include "links/model/vision/resnet.h"

#include <array>

#include "core/error.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/pooling.h"
#include "links/initializers.h"

namespace rensa::links {
namespace resnet {
namespace {

std::shared_ptr<Convolution2D> conv(int64_t in, int64_t out, int64_t ksize, int64_t stride, int64_t pad,
                                    const initializers::InitializerPtr& initialW) {
    return std::make_shared<Convolution2D>(
        in, out, ksize, Convolution2DOptions{.stride = stride, .pad = pad, .nobias = true, .initialW = initialW});
}

std::shared_ptr<BatchNormalization> bn(int64_t size) { return std::make_shared<BatchNormalization>(size); }

}  // namespace

BottleneckA::BottleneckA(int64_t in_channels, int64_t mid_channels, int64_t out_channels, int64_t stride,
                         initializers::InitializerPtr initialW, bool downsample_fb) {
    const int64_t stride_1x1 = downsample_fb ? 1 : stride;
    const int64_t stride_3x3 = downsample_fb ? stride : 1;
    register_link("conv1", &BottleneckA::conv1, conv(in_channels, mid_channels, 1, stride_1x1, 0, initialW));
    register_link("bn1", &BottleneckA::bn1, bn(mid_channels));
    register_link("conv2", &BottleneckA::conv2, conv(mid_channels, mid_channels, 3, stride_3x3, 1, initialW));
    register_link("bn2", &BottleneckA::bn2, bn(mid_channels));
    register_link("conv3", &BottleneckA::conv3, conv(mid_channels, out_channels, 1, 1, 0, initialW));
    register_link("bn3", &BottleneckA::bn3, bn(out_channels));
    register_link("conv4", &BottleneckA::conv4, conv(in_channels, out_channels, 1, stride, 0, initialW));
    register_link("bn4", &BottleneckA::bn4, bn(out_channels));
}

Variable BottleneckA::forward(const Variable& x) {
    Variable h1 = F::relu((*bn1)((*conv1)(x)));
    h1 = F::relu((*bn2)((*conv2)(h1)));
    h1 = (*bn3)((*conv3)(h1));
    const Variable h2 = (*bn4)((*conv4)(x));
    return F::relu(h1 + h2);
}

BottleneckB::BottleneckB(int64_t in_channels, int64_t mid_channels, initializers::InitializerPtr initialW) {
    register_link("conv1", &BottleneckB::conv1, conv(in_channels, mid_channels, 1, 1, 0, initialW));
    register_link("bn1", &BottleneckB::bn1, bn(mid_channels));
    register_link("conv2", &BottleneckB::conv2, conv(mid_channels, mid_channels, 3, 1, 1, initialW));
    register_link("bn2", &BottleneckB::bn2, bn(mid_channels));
    register_link("conv3", &BottleneckB::conv3, conv(mid_channels, in_channels, 1, 1, 0, initialW));
    register_link("bn3", &BottleneckB::bn3, bn(in_channels));
}

Variable BottleneckB::forward(const Variable& x) {
    Variable h = F::relu((*bn1)((*conv1)(x)));
    h = F::relu((*bn2)((*conv2)(h)));
    h = (*bn3)((*conv3)(h));
    return F::relu(h + x);
}

BuildingBlock::BuildingBlock(int n_layers, int64_t in_channels, int64_t mid_channels, int64_t out_channels,
                             int64_t stride, initializers::InitializerPtr initialW, bool downsample_fb) {
    RENSA_CHECK(n_layers >= 1, ValueError, "BuildingBlock: Expect: n_layers >= 1, Actual: n_layers = ", n_layers);
    add_link("a",
             std::make_shared<BottleneckA>(in_channels, mid_channels, out_channels, stride, initialW, downsample_fb));
    for (int i = 1; i < n_layers; ++i) {
        add_link("b" + std::to_string(i), std::make_shared<BottleneckB>(out_channels, mid_channels, initialW));
    }
}

Variable BuildingBlock::forward(const Variable& x) {
    Variable h = x;
    for (Link* f : children()) h = f->forward(h);  // a, b1, b2, ...: registration order
    return h;
}

}  // namespace resnet

namespace {

std::array<int, 4> block_sizes(int n_layers) {
    switch (n_layers) {
        case 50:
            return {3, 4, 6, 3};
        case 101:
            return {3, 4, 23, 3};
        case 152:
            return {3, 8, 36, 3};
        default:
            RENSA_THROW(ValueError, "ResNetLayers: Expect: n_layers in (50, 101, 152), Actual: n_layers = ", n_layers);
    }
}

// Chainer's _global_average_pooling_2d: the mean over the whole map, as (n, channels).
Variable global_average_pooling(const Variable& x) {
    const Shape& s = x.shape();
    const Variable h = F::average_pooling_2d(x, {s[2], s[3]}, {.stride = 1});
    return F::reshape(h, {s[0], s[1]});
}

}  // namespace

ResNetLayers::ResNetLayers(const std::string& pretrained_model, int n_layers, bool downsample_fb)
    : n_layers_(n_layers) {
    const std::array<int, 4> block = block_sizes(n_layers);
    vision::check_pretrained(name(), pretrained_model);
    // Chainer's conv kwargs: zeros under pretrained weights (overwritten), else HeNormal(scale=1).
    initializers::InitializerPtr initialW;
    if (pretrained_model.empty()) {
        initialW = std::make_shared<initializers::HeNormal>(1.0);
    } else {
        initialW = std::make_shared<initializers::Zero>();
    }
    register_link(
        "conv1", &ResNetLayers::conv1,
        std::make_shared<Convolution2D>(3, 64, 7, Convolution2DOptions{.stride = 2, .pad = 3, .initialW = initialW}));
    register_link("bn1", &ResNetLayers::bn1, std::make_shared<BatchNormalization>(64));
    using resnet::BuildingBlock;
    register_link("res2", &ResNetLayers::res2,
                  std::make_shared<BuildingBlock>(block[0], 64, 64, 256, 1, initialW, downsample_fb));
    register_link("res3", &ResNetLayers::res3,
                  std::make_shared<BuildingBlock>(block[1], 256, 128, 512, 2, initialW, downsample_fb));
    register_link("res4", &ResNetLayers::res4,
                  std::make_shared<BuildingBlock>(block[2], 512, 256, 1024, 2, initialW, downsample_fb));
    register_link("res5", &ResNetLayers::res5,
                  std::make_shared<BuildingBlock>(block[3], 1024, 512, 2048, 2, initialW, downsample_fb));
    register_link("fc6", &ResNetLayers::fc6, std::make_shared<Linear>(2048, 1000));
    vision::load_pretrained(*this, name(), pretrained_model);
}

vision::LayerTable ResNetLayers::functions() {
    auto link = [](const std::shared_ptr<Link>& l) { return [l](const Variable& x) { return l->forward(x); }; };
    auto relu = [](const Variable& x) { return F::relu(x); };
    auto pool1 = [](const Variable& x) { return F::max_pooling_2d(x, 3, {.stride = 2}); };
    auto softmax = [](const Variable& x) { return F::softmax(x); };
    return {{"conv1", {link(conv1), link(bn1), relu}},
            {"pool1", {pool1}},
            {"res2", {link(res2)}},
            {"res3", {link(res3)}},
            {"res4", {link(res4)}},
            {"res5", {link(res5)}},
            {"pool5", {global_average_pooling}},
            {"fc6", {link(fc6)}},
            {"prob", {softmax}}};
}

std::map<std::string, Variable> ResNetLayers::forward(const Variable& x, const std::vector<std::string>& layers) {
    return vision::forward_layers(name(), functions(), x, layers);
}

Variable ResNetLayers::forward(const Variable& x) { return forward(x, {"prob"}).at("prob"); }

}  // namespace rensa::links
