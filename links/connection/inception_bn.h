#pragma once
// InceptionBN (chainer.links.InceptionBN): the Inception module of the GoogLeNet with batch
// normalization. Every convolution has no bias and is followed by BatchNormalization and
// ReLU; the 5x5 path becomes two 3x3 convolutions; the pooling is "max" or "avg":
//   [conv1 -> conv1n] (when out1 > 0) | proj3 -> proj3n -> conv3 -> conv3n
//   | proj33 -> proj33n -> conv33a -> conv33an -> conv33b -> conv33bn
//   | 3x3 pooling (pad 1, `stride`) [-> poolp -> poolpn] (when proj_pool is given)
// concatenated along the channels. `stride` applies to the last convolution of each path
// and to the pooling, so the output is (h - 1) / stride + 1 high.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/initializer.h"
#include "links/normalization/batch_normalization.h"

namespace rensa::links {

class InceptionBN : public Cloneable<InceptionBN, Chain> {
public:
    // pooltype "max" or "avg" (NotImplementedError otherwise, as in Chainer). out1 > 0 needs
    // stride 1 and a proj_pool (ValueError). conv_init: initializer of the convolution weights
    // (null: Convolution2D's default); dtype: the BatchNormalization links' dtype.
    InceptionBN(std::optional<int64_t> in_channels, int64_t out1, int64_t proj3, int64_t out3, int64_t proj33,
                int64_t out33, std::string pooltype, std::optional<int64_t> proj_pool = std::nullopt,
                int64_t stride = 1, initializers::InitializerPtr conv_init = nullptr, Dtype dtype = Dtype::kFloat32);

    using Link::forward;
    Variable forward(const Variable& x) override;

    int64_t out1;
    std::optional<int64_t> proj_pool;
    int64_t stride;
    std::string pooltype;

    std::shared_ptr<Convolution2D> proj3, conv3, proj33, conv33a, conv33b;
    std::shared_ptr<BatchNormalization> proj3n, conv3n, proj33n, conv33an, conv33bn;
    std::shared_ptr<Convolution2D> conv1, poolp;         // null unless out1 > 0 / proj_pool is given
    std::shared_ptr<BatchNormalization> conv1n, poolpn;  // likewise
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
