#pragma once
// DeconvolutionND (chainer.links.DeconvolutionND): an N-dimensional transposed convolution
// layer (1 to 3 spatial dims) over F::deconvolution_nd.

#include <cstdint>
#include <optional>
#include <utility>

#include "functions/connection.h"
#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of Deconvolution2D and DeconvolutionND, in their order.
struct DeconvolutionNDOptions {
    F::IntOrTuple stride = 1;
    F::IntOrTuple pad = 0;
    bool nobias = false;
    std::optional<Shape> outsize{};               // nullopt: the smallest output size
    initializers::InitializerPtr initialW{};      // null: LeCunNormal
    initializers::InitializerPtr initial_bias{};  // null: zeros
    F::IntOrTuple dilate = 1;
    int64_t groups = 1;
};

class DeconvolutionND : public Cloneable<DeconvolutionND> {
public:
    Parameter W;  // (in_channels, out_channels / groups, *ksize)
    Parameter b;  // (out_channels,); undefined (None) with nobias

    // Chainer's DeconvolutionND(ndim, in_channels, out_channels, ksize, ...). in_channels
    // nullopt: W is created at the first forward from x.shape[1]. ValueError when ksize has
    // the wrong length or the channels are not divisible by groups.
    DeconvolutionND(int ndim, std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                    const DeconvolutionNDOptions& options = {});
    DeconvolutionND(int ndim, int64_t in_channels, int64_t out_channels, F::IntOrTuple ksize,
                    const DeconvolutionNDOptions& options = {})
        : DeconvolutionND(ndim, std::optional<int64_t>{in_channels}, out_channels, std::move(ksize), options) {}
    // Chainer's DeconvolutionND(ndim, out_channels, ksize): in_channels learnt from x.
    // GCC 12 binds a braced list with a single designator as ksize of the constructor above
    // (DeconvolutionND(2, 4, 3, {.pad = 1}) gives ksize 1): with one option, spell in_channels as
    // std::nullopt.
    DeconvolutionND(int ndim, int64_t out_channels, F::IntOrTuple ksize, const DeconvolutionNDOptions& options = {})
        : DeconvolutionND(ndim, std::nullopt, out_channels, std::move(ksize), options) {}

    using Link::forward;
    // F::deconvolution_nd(x, W, b, ...); DimensionError naming DeconvolutionND when x is not
    // (n, in_channels, *spatial).
    Variable forward(const Variable& x) override;

    int ndim() const { return static_cast<int>(ksize_.size()); }
    int64_t out_channels() const { return out_channels_; }

private:
    void initialize_params(int64_t in_channels);

    int64_t out_channels_;
    Shape ksize_;
    F::DeconvolutionOptions deconv_;
};

namespace detail {
// F's options from a deconvolution link's (entries expanded to ndim; ValueError naming link).
F::DeconvolutionOptions deconvolution_options(const DeconvolutionNDOptions& options, int ndim, const char* link);
// W's shape (in_channels, out_channels / groups, *ksize) after Chainer's divisibility checks.
Shape deconvolution_weight_shape(const char* link, int64_t in_channels, int64_t out_channels, const Shape& ksize,
                                 int64_t groups);
}  // namespace detail

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
