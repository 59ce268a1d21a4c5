#pragma once
// DeformableConvolution2D (chainer.links.DeformableConvolution2D, issue 23): a Chain of a
// Convolution2D `offset_conv` that predicts the offsets of the 2 * kh * kw sampling taps and
// a DeformableConvolution2DSampler `deform_conv` that convolves x at them
// (F::deformable_convolution_2d_sampler). NPZ keys are Chainer's: offset_conv/W,
// offset_conv/b, deform_conv/W, deform_conv/b.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "functions/connection.h"
#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of DeformableConvolution2DSampler, in its order.
struct DeformableConvolution2DSamplerOptions {
    F::IntOrTuple stride = 1;
    F::IntOrTuple pad = 0;
    bool nobias = false;
    initializers::InitializerPtr initialW{};      // null: zeros (Chainer's default here)
    initializers::InitializerPtr initial_bias{};  // null: zeros
};

// Chainer's chainer.links.connection.deformable_convolution_2d.DeformableConvolution2DSampler:
// the W (out_channels, in_channels, kh, kw) and b (out_channels) of the deformable convolution.
class DeformableConvolution2DSampler : public Cloneable<DeformableConvolution2DSampler> {
public:
    Parameter W;
    Parameter b;  // undefined (None) with nobias

    // in_channels nullopt: W is made at the first forward from x.shape[1].
    DeformableConvolution2DSampler(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                                   const DeformableConvolution2DSamplerOptions& options = {});

    // xs = {x, offset}: F::deformable_convolution_2d_sampler(x, offset, W, b, stride, pad).
    // ValueError for another number of inputs, DimensionError naming the link when x is not
    // (n, in_channels, h, w).
    Variable forward(const std::vector<Variable>& xs) override;
    // One input: the ValueError above.
    Variable forward(const Variable& x) override { return forward(std::vector<Variable>{x}); }

    int64_t out_channels() const { return out_channels_; }

private:
    int64_t out_channels_;
    Shape ksize_, stride_, pad_;
};

// Chainer's keyword arguments of DeformableConvolution2D, in its order.
struct DeformableConvolution2DOptions {
    F::IntOrTuple stride = 1;
    F::IntOrTuple pad = 0;
    bool offset_nobias = false;
    initializers::InitializerPtr offset_initialW{};      // null: LeCunNormal
    initializers::InitializerPtr offset_initial_bias{};  // null: zeros
    bool deform_nobias = false;
    initializers::InitializerPtr deform_initialW{};      // null: zeros
    initializers::InitializerPtr deform_initial_bias{};  // null: zeros
};

class DeformableConvolution2D : public Cloneable<DeformableConvolution2D, Chain> {
public:
    std::shared_ptr<Convolution2D> offset_conv;                   // in_channels -> 2 * kh * kw
    std::shared_ptr<DeformableConvolution2DSampler> deform_conv;  // in_channels -> out_channels

    // Chainer's DeformableConvolution2D(in_channels, out_channels, ksize, ...); in_channels
    // nullopt: both children learn it from x. ValueError on a bad ksize, stride or pad.
    DeformableConvolution2D(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                            const DeformableConvolution2DOptions& options = {});

    using Link::forward;
    // deform_conv(x, offset_conv(x)).
    Variable forward(const Variable& x) override;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
