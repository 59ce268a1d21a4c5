#include "links/connection/depthwise_convolution_2d.h"

#include "core/error.h"
#include "links/connection/convolution_nd.h"

namespace rensa::links {

namespace {
constexpr const char* kName = "DepthwiseConvolution2D";
}

DepthwiseConvolution2D::DepthwiseConvolution2D(std::optional<int64_t> in_channels, int64_t channel_multiplier,
                                               F::IntOrTuple ksize, const DepthwiseConvolution2DOptions& options)
    : channel_multiplier_{channel_multiplier},
      ksize_{ksize.expand(2, kName, "ksize")},
      conv_{.stride = options.stride.expand(2, kName, "stride"), .pad = options.pad.expand(2, kName, "pad")} {
    RENSA_CHECK(channel_multiplier >= 1, ValueError, kName, ": channel_multiplier=", channel_multiplier,
                " must be >= 1");
    // Both shapes depend on in_channels: W and b are lazy together.
    register_param("W", &DepthwiseConvolution2D::W, Parameter(detail::default_weight(options.initialW)));
    if (!options.nobias) {
        register_param("b", &DepthwiseConvolution2D::b, Parameter(detail::default_bias(options.initial_bias)));
    }
    if (in_channels) initialize_params(*in_channels);
}

void DepthwiseConvolution2D::initialize_params(int64_t in_channels) {
    RENSA_CHECK(in_channels >= 1, ValueError, kName, ": in_channels=", in_channels, " must be >= 1");
    W.initialize(Shape{channel_multiplier_, in_channels, ksize_[0], ksize_[1]});
    if (b.defined()) b.initialize(Shape{channel_multiplier_ * in_channels});
}

Variable DepthwiseConvolution2D::forward(const Variable& x) {
    const int64_t channels = detail::input_channels(kName, x, 2);
    if (!W.is_initialized()) initialize_params(channels);
    detail::check_input_channels(kName, channels, W.shape()[1]);
    return F::depthwise_convolution_2d(x, W, b, conv_);
}

}  // namespace rensa::links
