#pragma once
// Chainer 7's fixed-rank convolution links (issue 23): Convolution1D / Convolution3D and
// Deconvolution1D / Deconvolution3D are ConvolutionND / DeconvolutionND with ndim 1 or 3, and
// DilatedConvolution2D is Convolution2D with Chainer's (stride, pad, dilate, ...) argument
// order. Parameter names (W, b), shapes and behaviour are those of the base links.

#include <cstdint>
#include <optional>
#include <utility>

#include "links/connection/convolution_2d.h"
#include "links/connection/convolution_nd.h"
#include "links/connection/deconvolution_nd.h"

namespace rensa::links {

// Chainer's ConvolutionND(N, in_channels, out_channels, ksize, ...) for a fixed N.
template <int N>
class ConvolutionFixedND : public Cloneable<ConvolutionFixedND<N>, ConvolutionND> {
public:
    ConvolutionFixedND(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                       const ConvolutionNDOptions& options = {})
        : Cloneable<ConvolutionFixedND<N>, ConvolutionND>(N, in_channels, out_channels, std::move(ksize), options) {}
};
using Convolution1D = ConvolutionFixedND<1>;
using Convolution3D = ConvolutionFixedND<3>;

// Chainer's DeconvolutionND(N, in_channels, out_channels, ksize, ...) for a fixed N.
template <int N>
class DeconvolutionFixedND : public Cloneable<DeconvolutionFixedND<N>, DeconvolutionND> {
public:
    DeconvolutionFixedND(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                         const DeconvolutionNDOptions& options = {})
        : Cloneable<DeconvolutionFixedND<N>, DeconvolutionND>(N, in_channels, out_channels, std::move(ksize), options) {
    }
};
using Deconvolution1D = DeconvolutionFixedND<1>;
using Deconvolution3D = DeconvolutionFixedND<3>;

// Chainer's keyword arguments of DilatedConvolution2D, in its order.
struct DilatedConvolution2DOptions {
    F::IntOrTuple stride = 1;
    F::IntOrTuple pad = 0;
    F::IntOrTuple dilate = 1;
    bool nobias = false;
    initializers::InitializerPtr initialW{};      // null: LeCunNormal
    initializers::InitializerPtr initial_bias{};  // null: zeros
};

class DilatedConvolution2D : public Cloneable<DilatedConvolution2D, Convolution2D> {
public:
    // Chainer's DilatedConvolution2D(in_channels, out_channels, ksize, ...); in_channels
    // nullopt: W is made at the first forward.
    DilatedConvolution2D(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                         const DilatedConvolution2DOptions& options = {})
        : Cloneable<DilatedConvolution2D, Convolution2D>(in_channels, out_channels, std::move(ksize),
                                                         Convolution2DOptions{.stride = options.stride,
                                                                              .pad = options.pad,
                                                                              .nobias = options.nobias,
                                                                              .initialW = options.initialW,
                                                                              .initial_bias = options.initial_bias,
                                                                              .dilate = options.dilate}) {}
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
