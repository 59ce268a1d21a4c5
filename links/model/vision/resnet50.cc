#include "links/model/vision/resnet50.h"

#include "functions/activation.h"
#include "functions/math.h"
#include "functions/pooling.h"
#include "links/initializers.h"

namespace rensa::links {
namespace resnet50 {
namespace {

// Convolution2D(in, out, ksize, stride, pad, initialW=HeNormal(), nobias=True).
std::shared_ptr<Convolution2D> conv(int64_t in, int64_t out, int64_t ksize, int64_t stride, int64_t pad,
                                    int64_t groups = 1) {
    return std::make_shared<Convolution2D>(in, out, ksize,
                                           Convolution2DOptions{.stride = stride,
                                                                .pad = pad,
                                                                .nobias = true,
                                                                .initialW = std::make_shared<initializers::HeNormal>(),
                                                                .groups = groups});
}

std::shared_ptr<BatchNormalization> bn(int64_t size) { return std::make_shared<BatchNormalization>(size); }

}  // namespace

BottleNeckA::BottleNeckA(int64_t in_size, int64_t ch, int64_t out_size, int64_t stride, int64_t groups,
                         bool downsample_fb) {
    const int64_t stride_1x1 = downsample_fb ? stride : 1;
    const int64_t stride_3x3 = downsample_fb ? 1 : stride;
    register_link("conv1", &BottleNeckA::conv1, conv(in_size, ch, 1, stride_1x1, 0));
    register_link("bn1", &BottleNeckA::bn1, bn(ch));
    register_link("conv2", &BottleNeckA::conv2, conv(ch, ch, 3, stride_3x3, 1, groups));
    register_link("bn2", &BottleNeckA::bn2, bn(ch));
    register_link("conv3", &BottleNeckA::conv3, conv(ch, out_size, 1, 1, 0));
    register_link("bn3", &BottleNeckA::bn3, bn(out_size));
    register_link("conv4", &BottleNeckA::conv4, conv(in_size, out_size, 1, stride, 0));
    register_link("bn4", &BottleNeckA::bn4, bn(out_size));
}

Variable BottleNeckA::forward(const Variable& x) {
    Variable h1 = F::relu((*bn1)((*conv1)(x)));
    h1 = F::relu((*bn2)((*conv2)(h1)));
    h1 = (*bn3)((*conv3)(h1));
    const Variable h2 = (*bn4)((*conv4)(x));
    return F::relu(h1 + h2);
}

BottleNeckB::BottleNeckB(int64_t in_size, int64_t ch, int64_t groups) {
    register_link("conv1", &BottleNeckB::conv1, conv(in_size, ch, 1, 1, 0));
    register_link("bn1", &BottleNeckB::bn1, bn(ch));
    register_link("conv2", &BottleNeckB::conv2, conv(ch, ch, 3, 1, 1, groups));
    register_link("bn2", &BottleNeckB::bn2, bn(ch));
    register_link("conv3", &BottleNeckB::conv3, conv(ch, in_size, 1, 1, 0));
    register_link("bn3", &BottleNeckB::bn3, bn(in_size));
}

Variable BottleNeckB::forward(const Variable& x) {
    Variable h = F::relu((*bn1)((*conv1)(x)));
    h = F::relu((*bn2)((*conv2)(h)));
    h = (*bn3)((*conv3)(h));
    return F::relu(h + x);
}

Block::Block(int layer, int64_t in_size, int64_t ch, int64_t out_size, int64_t stride, int64_t groups,
             bool downsample_fb) {
    add_link(std::make_shared<BottleNeckA>(in_size, ch, out_size, stride, groups, downsample_fb));
    for (int i = 0; i < layer - 1; ++i) add_link(std::make_shared<BottleNeckB>(out_size, ch, groups));
}

Variable Block::forward(const Variable& x) {
    Variable h = x;
    for (Link* f : children()) h = f->forward(h);
    return h;
}

}  // namespace resnet50

ResNet50::ResNet50(int64_t n_class) {
    register_link(
        "conv1", &ResNet50::conv1,
        std::make_shared<Convolution2D>(
            3, 64, 7,
            Convolution2DOptions{.stride = 2, .pad = 3, .initialW = std::make_shared<initializers::HeNormal>()}));
    register_link("bn1", &ResNet50::bn1, std::make_shared<BatchNormalization>(64));
    register_link("res2", &ResNet50::res2, std::make_shared<resnet50::Block>(3, 64, 64, 256, 1));
    register_link("res3", &ResNet50::res3, std::make_shared<resnet50::Block>(4, 256, 128, 512));
    register_link("res4", &ResNet50::res4, std::make_shared<resnet50::Block>(6, 512, 256, 1024));
    register_link("res5", &ResNet50::res5, std::make_shared<resnet50::Block>(3, 1024, 512, 2048));
    register_link("fc", &ResNet50::fc, std::make_shared<Linear>(2048, n_class));
}

Variable ResNet50::forward(const Variable& x) {
    Variable h = (*bn1)((*conv1)(x));
    h = F::max_pooling_2d(F::relu(h), 3, {.stride = 2});
    h = (*res2)(h);
    h = (*res3)(h);
    h = (*res4)(h);
    h = (*res5)(h);
    h = F::average_pooling_2d(h, {h.shape()[2], h.shape()[3]}, {.stride = 1});  // global: see the header
    return (*fc)(h);
}

}  // namespace rensa::links
