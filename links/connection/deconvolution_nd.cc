#include "links/connection/deconvolution_nd.h"
#include "links/mixed_precision.h"

#include "links/connection/convolution_nd.h"

namespace rensa::links {

namespace detail {

F::DeconvolutionOptions deconvolution_options(const DeconvolutionNDOptions& options, int ndim, const char* link) {
    return {.stride = options.stride.expand(ndim, link, "stride"),
            .pad = options.pad.expand(ndim, link, "pad"),
            .outsize = options.outsize,
            .dilate = options.dilate.expand(ndim, link, "dilate"),
            .groups = options.groups};
}

Shape deconvolution_weight_shape(const char* link, int64_t in_channels, int64_t out_channels, const Shape& ksize,
                                 int64_t groups) {
    check_groups(link, in_channels, out_channels, groups);
    Shape shape{in_channels, out_channels / groups};
    for (const int64_t k : ksize) shape.push_back(k);
    return shape;
}

}  // namespace detail

namespace {
constexpr const char* kName = "DeconvolutionND";
}

DeconvolutionND::DeconvolutionND(int ndim, std::optional<int64_t> in_channels, int64_t out_channels,
                                 F::IntOrTuple ksize, const DeconvolutionNDOptions& options)
    : out_channels_{out_channels},
      ksize_{ksize.expand(detail::checked_ndim(kName, ndim), kName, "ksize")},
      deconv_{detail::deconvolution_options(options, ndim, kName)} {
    register_param("W", &DeconvolutionND::W, Parameter(detail::default_weight(options.initialW)));
    if (in_channels) initialize_params(*in_channels);
    if (!options.nobias) {
        register_param("b", &DeconvolutionND::b,
                       Parameter(detail::default_bias(options.initial_bias), Shape{out_channels_}));
    }
}

void DeconvolutionND::initialize_params(int64_t in_channels) {
    W.initialize(detail::deconvolution_weight_shape(kName, in_channels, out_channels_, ksize_, deconv_.groups));
}

Variable DeconvolutionND::forward(const Variable& x) {
    const int64_t channels = detail::input_channels(kName, x, ndim());
    if (!W.is_initialized()) initialize_params(channels);
    detail::check_input_channels(kName, channels, W.shape()[0]);
    return F::deconvolution_nd(mixed16_input(x, W), W, b, deconv_);  // Note [Mixed precision inputs]
}

}  // namespace rensa::links
