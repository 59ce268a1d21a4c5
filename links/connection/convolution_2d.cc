#include "links/connection/convolution_2d.h"
#include "links/mixed_precision.h"

#include "links/connection/convolution_nd.h"

namespace rensa::links {

namespace {
constexpr const char* kName = "Convolution2D";
}

Convolution2D::Convolution2D(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                             const Convolution2DOptions& options)
    : out_channels_{out_channels},
      ksize_{ksize.expand(2, kName, "ksize")},
      conv_{.stride = options.stride.expand(2, kName, "stride"),
            .pad = options.pad.expand(2, kName, "pad"),
            .cover_all = false,
            .dilate = options.dilate.expand(2, kName, "dilate"),
            .groups = options.groups} {
    register_param("W", &Convolution2D::W, Parameter(detail::default_weight(options.initialW)));
    if (in_channels) initialize_params(*in_channels);
    if (!options.nobias) {
        register_param("b", &Convolution2D::b,
                       Parameter(detail::default_bias(options.initial_bias), Shape{out_channels_}));
    }
}

void Convolution2D::initialize_params(int64_t in_channels) {
    detail::check_groups(kName, in_channels, out_channels_, conv_.groups);
    W.initialize(Shape{out_channels_, in_channels / conv_.groups, ksize_[0], ksize_[1]});
}

Variable Convolution2D::forward(const Variable& x) {
    const int64_t channels = detail::input_channels(kName, x, 2);
    if (!W.is_initialized()) initialize_params(channels);
    detail::check_input_channels(kName, channels, W.shape()[1] * conv_.groups);
    return F::convolution_2d(mixed16_input(x, W), W, b, conv_);  // Note [Mixed precision inputs]
}

}  // namespace rensa::links
