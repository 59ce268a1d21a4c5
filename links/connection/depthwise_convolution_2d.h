#pragma once
// DepthwiseConvolution2D (chainer.links.DepthwiseConvolution2D): a depthwise 2-D
// convolution layer over F::depthwise_convolution_2d.

#include <cstdint>
#include <optional>
#include <utility>

#include "functions/connection.h"
#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of DepthwiseConvolution2D, in its order.
struct DepthwiseConvolution2DOptions {
    F::IntOrTuple stride = 1;
    F::IntOrTuple pad = 0;
    bool nobias = false;
    initializers::InitializerPtr initialW{};      // null: LeCunNormal
    initializers::InitializerPtr initial_bias{};  // null: zeros
};

class DepthwiseConvolution2D : public Cloneable<DepthwiseConvolution2D> {
public:
    Parameter W;  // (channel_multiplier, in_channels, kh, kw)
    Parameter b;  // (channel_multiplier * in_channels,); undefined (None) with nobias

    // Chainer's DepthwiseConvolution2D(in_channels, channel_multiplier, ksize, ...).
    // in_channels nullopt: W and b are created at the first forward from x.shape[1].
    DepthwiseConvolution2D(std::optional<int64_t> in_channels, int64_t channel_multiplier, F::IntOrTuple ksize,
                           const DepthwiseConvolution2DOptions& options = {});

    using Link::forward;
    // F::depthwise_convolution_2d(x, W, b, ...); DimensionError naming DepthwiseConvolution2D
    // when x is not (n, in_channels, h, w).
    Variable forward(const Variable& x) override;

    int64_t channel_multiplier() const { return channel_multiplier_; }

private:
    void initialize_params(int64_t in_channels);

    int64_t channel_multiplier_;
    Shape ksize_;
    F::DepthwiseConvolutionOptions conv_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
