#pragma once
// CifarVGG16 (named VGG16 before): the VGG of Chainer's CIFAR example (examples/cifar/models/VGG.py, class VGG):
// thirteen 3x3 convolution + batch normalization + ReLU blocks in five groups with dropout between them and 2x2 max
// pooling after each group, then fc1 (512, no bias) + bn_fc1 + ReLU and fc2 (class_labels, no bias). Made for 32x32 RGB
// or greyscale inputs (CIFAR-10/100); no pretrained weights. NPZ keys follow the example: block1_1/conv/W,
// block1_1/bn/gamma,
// ..., fc1/W, bn_fc1/gamma, fc2/W.

#include <cstdint>
#include <memory>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"
#include "links/normalization/batch_normalization.h"

namespace rensa::links {
namespace cifar_vgg {

// Convolution (in_channels learned from the input, ksize x ksize, no bias), batch
// normalization, ReLU.
class Block : public Cloneable<Block, Chain> {
public:
    Block(int64_t out_channels, int64_t ksize, int64_t pad = 1);
    using Link::forward;
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv;
    std::shared_ptr<BatchNormalization> bn;
};

}  // namespace cifar_vgg

class CifarVGG16 : public Cloneable<CifarVGG16, Chain> {
public:
    static constexpr int64_t insize = 32;

    explicit CifarVGG16(int64_t class_labels = 10);
    using Link::forward;
    // Logits (n, class_labels) of x (n, c, h, w); h and w must be at least 32 (five 2x2 poolings).
    Variable forward(const Variable& x) override;

    std::shared_ptr<cifar_vgg::Block> block1_1, block1_2, block2_1, block2_2, block3_1, block3_2, block3_3, block4_1,
        block4_2, block4_3, block5_1, block5_2, block5_3;
    std::shared_ptr<Linear> fc1;
    std::shared_ptr<BatchNormalization> bn_fc1;
    std::shared_ptr<Linear> fc2;
};

using CifarVGG = CifarVGG16;  // the example's class VGG

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
