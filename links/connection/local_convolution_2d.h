#pragma once
// LocalConvolution2D (chainer.links.LocalConvolution2D, issue 23): a locally connected 2-D
// layer over F::local_convolution_2d, one filter and one bias per output position.

#include <cstdint>
#include <optional>
#include <utility>

#include "functions/connection.h"
#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of LocalConvolution2D after ksize, in its order.
struct LocalConvolution2DOptions {
    F::IntOrTuple stride = 1;
    bool nobias = false;
    initializers::InitializerPtr initialW{};      // null: LeCunNormal
    initializers::InitializerPtr initial_bias{};  // null: zeros
};

class LocalConvolution2D : public Cloneable<LocalConvolution2D> {
public:
    Parameter W;  // (out_channels, out_h, out_w, in_channels, kh, kw)
    Parameter b;  // (out_channels, out_h, out_w); undefined (None) with nobias

    // Chainer's LocalConvolution2D(in_channels, out_channels, in_size, ksize, ...). The
    // parameters are made now when in_channels and in_size (h, w) are both given, else at the
    // first forward from x's shape. out_h = (h - kh) / sy + 1 (Chainer's link ignores the
    // stride there, so only stride 1 works in Chainer; the sizes agree for it). ValueError when
    // ksize or stride are not 1 or 2 positive entries, or the image is smaller than ksize.
    LocalConvolution2D(std::optional<int64_t> in_channels, int64_t out_channels, std::optional<F::IntOrTuple> in_size,
                       F::IntOrTuple ksize, const LocalConvolution2DOptions& options = {});

    using Link::forward;
    // F::local_convolution_2d(x, W, b, stride); DimensionError naming LocalConvolution2D when
    // x is not (n, in_channels, h, w) of the size the parameters were made for.
    Variable forward(const Variable& x) override;

    int64_t out_channels() const { return out_channels_; }

private:
    void initialize_params(int64_t in_channels, int64_t h, int64_t w);

    int64_t out_channels_;
    Shape ksize_, stride_;
    bool nobias_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
