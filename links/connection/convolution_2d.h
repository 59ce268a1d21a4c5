#pragma once
// Convolution2D (chainer.links.Convolution2D): a 2-D convolution layer over F::convolution_2d.

#include <cstdint>
#include <optional>
#include <utility>

#include "functions/connection.h"
#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of Convolution2D, in its order:
//   Convolution2D(3, 32, 3, {.stride = 2, .pad = 1, .nobias = true})
struct Convolution2DOptions {
    F::IntOrTuple stride = 1;
    F::IntOrTuple pad = 0;
    bool nobias = false;
    initializers::InitializerPtr initialW{};      // null: LeCunNormal
    initializers::InitializerPtr initial_bias{};  // null: zeros
    F::IntOrTuple dilate = 1;
    int64_t groups = 1;
};

class Convolution2D : public Cloneable<Convolution2D> {
public:
    Parameter W;  // (out_channels, in_channels / groups, kh, kw)
    Parameter b;  // (out_channels,); undefined (None) with nobias

    // Chainer's Convolution2D(in_channels, out_channels, ksize, ...). in_channels nullopt:
    // W is created at the first forward from x.shape[1]. ValueError when the channels are
    // not divisible by groups or ksize/stride/pad/dilate have more than 2 entries.
    Convolution2D(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                  const Convolution2DOptions& options = {});
    Convolution2D(int64_t in_channels, int64_t out_channels, F::IntOrTuple ksize,
                  const Convolution2DOptions& options = {})
        : Convolution2D(std::optional<int64_t>{in_channels}, out_channels, std::move(ksize), options) {}
    // Chainer's Convolution2D(out_channels, ksize): in_channels learnt from x.
    // GCC 12 binds a braced list with a single designator as ksize of the constructor above
    // (Convolution2D(4, 3, {.pad = 1}) gives ksize 1): with one option, spell in_channels as
    // std::nullopt.
    Convolution2D(int64_t out_channels, F::IntOrTuple ksize, const Convolution2DOptions& options = {})
        : Convolution2D(std::nullopt, out_channels, std::move(ksize), options) {}

    using Link::forward;
    // F::convolution_2d(x, W, b, ...); DimensionError naming Convolution2D when x is not
    // (n, in_channels, h, w).
    Variable forward(const Variable& x) override;

    int64_t out_channels() const { return out_channels_; }

private:
    void initialize_params(int64_t in_channels);

    int64_t out_channels_;
    Shape ksize_;
    F::ConvolutionOptions conv_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
