#include "links/connection/local_convolution_2d.h"

#include "core/error.h"
#include "links/connection/convolution_nd.h"

namespace rensa::links {

namespace {
constexpr const char* kName = "LocalConvolution2D";
}

LocalConvolution2D::LocalConvolution2D(std::optional<int64_t> in_channels, int64_t out_channels,
                                       std::optional<F::IntOrTuple> in_size, F::IntOrTuple ksize,
                                       const LocalConvolution2DOptions& options)
    : out_channels_{out_channels},
      ksize_{ksize.expand(2, kName, "ksize")},
      stride_{options.stride.expand(2, kName, "stride")},
      nobias_{options.nobias} {
    RENSA_CHECK(ksize_[0] > 0 && ksize_[1] > 0 && stride_[0] > 0 && stride_[1] > 0, ValueError, kName,
                ": Expect: ksize > 0 and stride > 0, Actual: ksize ", ksize_, ", stride ", stride_);
    RENSA_CHECK(out_channels > 0, ValueError, kName, ": Expect: out_channels > 0, Actual: ", out_channels);
    register_param("W", &LocalConvolution2D::W, Parameter(detail::default_weight(options.initialW)));
    if (!options.nobias) {
        register_param("b", &LocalConvolution2D::b, Parameter(detail::default_bias(options.initial_bias)));
    }
    if (in_channels && in_size) {
        const Shape size = in_size->expand(2, kName, "in_size");
        initialize_params(*in_channels, size[0], size[1]);
    }
}

void LocalConvolution2D::initialize_params(int64_t in_channels, int64_t h, int64_t w) {
    RENSA_CHECK(h >= ksize_[0] && w >= ksize_[1], ValueError, kName, ": Expect: in_size >= ksize, Actual: in_size (", h,
                ", ", w, "), ksize ", ksize_);
    const int64_t oh = (h - ksize_[0]) / stride_[0] + 1, ow = (w - ksize_[1]) / stride_[1] + 1;
    W.initialize(Shape{out_channels_, oh, ow, in_channels, ksize_[0], ksize_[1]});
    if (!nobias_) b.initialize(Shape{out_channels_, oh, ow});
}

Variable LocalConvolution2D::forward(const Variable& x) {
    const int64_t channels = detail::input_channels(kName, x, 2);
    if (!W.is_initialized()) initialize_params(channels, x.shape()[2], x.shape()[3]);
    detail::check_input_channels(kName, channels, W.shape()[3]);
    const int64_t oh = (x.shape()[2] - ksize_[0]) / stride_[0] + 1, ow = (x.shape()[3] - ksize_[1]) / stride_[1] + 1;
    RENSA_CHECK(x.shape()[2] >= ksize_[0] && x.shape()[3] >= ksize_[1] && oh == W.shape()[1] && ow == W.shape()[2],
                DimensionError, kName, ": x.shape ", x.shape(), " gives ", oh, " x ", ow,
                " output positions, but W was made for ", W.shape()[1], " x ", W.shape()[2]);
    return F::local_convolution_2d(x, W, b, stride_);
}

}  // namespace rensa::links
