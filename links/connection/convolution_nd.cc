#include "links/connection/convolution_nd.h"
#include "links/mixed_precision.h"

#include "core/error.h"
#include "links/initializers.h"

namespace rensa::links {

namespace detail {

void check_groups(const char* link, int64_t in_channels, int64_t out_channels, int64_t groups) {
    RENSA_CHECK(groups >= 1, ValueError, link, ": groups=", groups, " must be >= 1");
    RENSA_CHECK(out_channels % groups == 0, ValueError, link, ": out_channels=", out_channels,
                " is not divisible by groups=", groups);
    RENSA_CHECK(in_channels % groups == 0, ValueError, link, ": in_channels=", in_channels,
                " is not divisible by groups=", groups);
}

int checked_ndim(const char* link, int ndim) {
    RENSA_CHECK(ndim >= 1, ValueError, link, ": ndim=", ndim, " must be >= 1");
    return ndim;
}

int64_t input_channels(const char* link, const Variable& x, int spatial_ndim) {
    RENSA_CHECK(x.ndim() == spatial_ndim + 2, DimensionError, link, ": x must have ", spatial_ndim + 2,
                " dimensions (n, c, ...), got shape ", x.shape());
    return x.shape()[1];
}

void check_input_channels(const char* link, int64_t channels, int64_t expected) {
    RENSA_CHECK(channels == expected, DimensionError, link, ": x has ", channels,
                " channels (x.shape[1]), but in_channels=", expected);
}

initializers::InitializerPtr default_weight(initializers::InitializerPtr initialW) {
    return initializers::or_default(std::move(initialW), std::make_shared<initializers::LeCunNormal>());
}

initializers::InitializerPtr default_bias(initializers::InitializerPtr initial_bias) {
    return initializers::or_default(std::move(initial_bias), initializers::constant(0));
}

}  // namespace detail

ConvolutionND::ConvolutionND(int ndim, std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                             const ConvolutionNDOptions& options)
    : out_channels_{out_channels},
      ksize_{ksize.expand(detail::checked_ndim("ConvolutionND", ndim), "ConvolutionND", "ksize")},
      conv_{.stride = options.stride.expand(ndim, "ConvolutionND", "stride"),
            .pad = options.pad.expand(ndim, "ConvolutionND", "pad"),
            .cover_all = options.cover_all,
            .dilate = options.dilate.expand(ndim, "ConvolutionND", "dilate"),
            .groups = options.groups} {
    register_param("W", &ConvolutionND::W, Parameter(detail::default_weight(options.initialW)));
    if (in_channels) initialize_params(*in_channels);
    if (!options.nobias) {
        register_param("b", &ConvolutionND::b,
                       Parameter(detail::default_bias(options.initial_bias), Shape{out_channels_}));
    }
}

void ConvolutionND::initialize_params(int64_t in_channels) {
    detail::check_groups("ConvolutionND", in_channels, out_channels_, conv_.groups);
    Shape shape{out_channels_, in_channels / conv_.groups};
    for (const int64_t k : ksize_) shape.push_back(k);
    W.initialize(shape);
}

Variable ConvolutionND::forward(const Variable& x) {
    const int64_t channels = detail::input_channels("ConvolutionND", x, ndim());
    if (!W.is_initialized()) initialize_params(channels);
    detail::check_input_channels("ConvolutionND", channels, W.shape()[1] * conv_.groups);
    return F::convolution_nd(mixed16_input(x, W), W, b, conv_);  // Note [Mixed precision inputs]
}

}  // namespace rensa::links
