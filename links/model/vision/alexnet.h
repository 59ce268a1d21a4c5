#pragma once
// AlexNet of Chainer's ImageNet example (examples/imagenet/alex.py, class Alex): the
// single-GPU AlexNet without the partition along the channels. conv1..conv5 with ReLU,
// local response normalization after conv1 and conv2, 3x3 stride-2 max pooling after conv1,
// conv2 and conv5, then fc6, fc7 (4096, ReLU, dropout) and fc8. All input sizes are learned
// at the first forward (Chainer's None); no pretrained weights. NPZ keys: conv1/W, ..., fc8/b.

#include <cstdint>
#include <memory>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"

namespace rensa::links {

class Alex : public Cloneable<Alex, Chain> {
public:
    static constexpr int64_t insize = 227;  // the example's input size

    // n_class: outputs of fc8 (the example's 1000).
    explicit Alex(int64_t n_class = 1000);
    using Link::forward;
    // Logits (n, n_class) of x (n, c, h, w); h and w must be at least 39.
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1, conv2, conv3, conv4, conv5;
    std::shared_ptr<Linear> fc6, fc7, fc8;
};

using AlexNet = Alex;

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
