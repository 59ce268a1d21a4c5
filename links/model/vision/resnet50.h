#pragma once
// ResNet50 of Chainer's ImageNet example (examples/imagenet/resnet50.py), without
// pretrained weights. NPZ keys follow the example: conv1/W, bn1/gamma, res2/0/conv1/W
// (BottleNeckA), res2/1/conv1/W (BottleNeckB), ..., fc/W.
//
// One difference: the last pooling averages over the whole feature map (the example's
// average_pooling_2d(h, 7) on the 7x7 map of a 224x224 input is the same thing), so the
// model also takes smaller inputs (32x32 is the smallest one that reaches res5 as 1x1).

#include <cstdint>
#include <memory>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"
#include "links/normalization/batch_normalization.h"

namespace rensa::links {
namespace resnet50 {

// The first bottleneck of a block: 1x1 -> 3x3 (stride, or the 1x1 when downsample_fb) ->
// 1x1 convolutions with batch normalization, plus a strided 1x1 projection (conv4, bn4) of x.
class BottleNeckA : public Cloneable<BottleNeckA, Chain> {
public:
    BottleNeckA(int64_t in_size, int64_t ch, int64_t out_size, int64_t stride = 2, int64_t groups = 1,
                bool downsample_fb = false);
    using Link::forward;
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1, conv2, conv3, conv4;
    std::shared_ptr<BatchNormalization> bn1, bn2, bn3, bn4;
};

// The other bottlenecks: the same three convolutions with an identity shortcut.
class BottleNeckB : public Cloneable<BottleNeckB, Chain> {
public:
    BottleNeckB(int64_t in_size, int64_t ch, int64_t groups = 1);
    using Link::forward;
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1, conv2, conv3;
    std::shared_ptr<BatchNormalization> bn1, bn2, bn3;
};

// A BottleNeckA then layer - 1 BottleNeckBs, children "0", "1", ...
class Block : public Cloneable<Block, ChainList> {
public:
    Block(int layer, int64_t in_size, int64_t ch, int64_t out_size, int64_t stride = 2, int64_t groups = 1,
          bool downsample_fb = false);
    using Link::forward;
    Variable forward(const Variable& x) override;
};

}  // namespace resnet50

class ResNet50 : public Cloneable<ResNet50, Chain> {
public:
    static constexpr int64_t insize = 224;  // the example's input size

    // n_class: outputs of fc (the example's 1000).
    explicit ResNet50(int64_t n_class = 1000);
    using Link::forward;
    // Logits (n, n_class) of x (n, 3, h, w), h, w >= 32.
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1;
    std::shared_ptr<BatchNormalization> bn1;
    std::shared_ptr<resnet50::Block> res2, res3, res4, res5;
    std::shared_ptr<Linear> fc;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
