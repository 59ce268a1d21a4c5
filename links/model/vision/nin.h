#pragma once
// Network in Network of Chainer's ImageNet example (examples/imagenet/nin.py, class NIN):
// four mlpconv layers (MLPConvolution2D, weights HeNormal) with ReLU and 3x3 stride-2 max
// pooling after the first three, dropout before the last, then a 6x6 average pooling to
// (n, n_class). No pretrained weights. NPZ keys: mlpconv1/0/W, mlpconv1/0/b, ...,
// mlpconv4/2/b.

#include <cstdint>
#include <memory>

#include "links/chain.h"
#include "links/connection/mlp_convolution_2d.h"

namespace rensa::links {

class NIN : public Cloneable<NIN, Chain> {
public:
    static constexpr int64_t insize = 227;  // the example's input size

    // n_class: channels of mlpconv4's last convolution (the example's 1000).
    explicit NIN(int64_t n_class = 1000);
    using Link::forward;
    // Logits (n, n_class) of x (n, c, h, w). The 6x6 pooling must give a 1x1 map: h and w
    // between 199 and 390 (DimensionError from the reshape otherwise).
    Variable forward(const Variable& x) override;

    int64_t n_class;
    std::shared_ptr<MLPConvolution2D> mlpconv1, mlpconv2, mlpconv3, mlpconv4;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
