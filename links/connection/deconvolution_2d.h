#pragma once
// Deconvolution2D (chainer.links.Deconvolution2D): a 2-D transposed convolution layer over
// F::deconvolution_2d.

#include <cstdint>
#include <optional>
#include <utility>

#include "functions/connection.h"
#include "links/connection/deconvolution_nd.h"
#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of Deconvolution2D (stride, pad, nobias, outsize, initialW,
// initial_bias, dilate, groups), shared with DeconvolutionND:
//   Deconvolution2D(16, 3, 4, {.stride = 2, .pad = 1, .outsize = Shape{32, 32}})
using Deconvolution2DOptions = DeconvolutionNDOptions;

class Deconvolution2D : public Cloneable<Deconvolution2D> {
public:
    Parameter W;  // (in_channels, out_channels / groups, kh, kw)
    Parameter b;  // (out_channels,); undefined (None) with nobias

    // Chainer's Deconvolution2D(in_channels, out_channels, ksize, ...). in_channels nullopt:
    // W is created at the first forward from x.shape[1]. ValueError when the channels are
    // not divisible by groups or ksize/stride/pad/dilate have more than 2 entries.
    Deconvolution2D(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                    const Deconvolution2DOptions& options = {});
    Deconvolution2D(int64_t in_channels, int64_t out_channels, F::IntOrTuple ksize,
                    const Deconvolution2DOptions& options = {})
        : Deconvolution2D(std::optional<int64_t>{in_channels}, out_channels, std::move(ksize), options) {}
    // Chainer's Deconvolution2D(out_channels, ksize): in_channels learnt from x.
    // GCC 12 binds a braced list with a single designator as ksize of the constructor above
    // (Deconvolution2D(4, 3, {.pad = 1}) gives ksize 1): with one option, spell in_channels as
    // std::nullopt.
    Deconvolution2D(int64_t out_channels, F::IntOrTuple ksize, const Deconvolution2DOptions& options = {})
        : Deconvolution2D(std::nullopt, out_channels, std::move(ksize), options) {}

    using Link::forward;
    // F::deconvolution_2d(x, W, b, ...); DimensionError naming Deconvolution2D when x is not
    // (n, in_channels, h, w).
    Variable forward(const Variable& x) override;

    int64_t out_channels() const { return out_channels_; }

private:
    void initialize_params(int64_t in_channels);

    int64_t out_channels_;
    Shape ksize_;
    F::DeconvolutionOptions deconv_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
