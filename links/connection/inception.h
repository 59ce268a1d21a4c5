#pragma once
// Inception (chainer.links.Inception): the GoogLeNet module. Four paths over the same
// input, concatenated along the channels and passed through ReLU:
//   conv1 (1x1) | proj3 (1x1) -> ReLU -> conv3 (3x3, pad 1)
//   | proj5 (1x1) -> ReLU -> conv5 (5x5, pad 2) | 3x3 max pooling (stride 1, pad 1) -> projp (1x1)
// The output keeps x's batch and spatial size and has out1 + out3 + out5 + proj_pool channels.

#include <cstdint>
#include <memory>
#include <optional>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/initializer.h"

namespace rensa::links {

class Inception : public Cloneable<Inception, Chain> {
public:
    // in_channels nullopt: learned from the first input (Chainer's None). conv_init /
    // bias_init: initializers of every convolution's W / b (null: Convolution2D's defaults).
    Inception(std::optional<int64_t> in_channels, int64_t out1, int64_t proj3, int64_t out3, int64_t proj5,
              int64_t out5, int64_t proj_pool, initializers::InitializerPtr conv_init = nullptr,
              initializers::InitializerPtr bias_init = nullptr);

    using Link::forward;
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1, proj3, conv3, proj5, conv5, projp;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
