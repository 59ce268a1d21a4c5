#include "links/connection/deconvolution_2d.h"
#include "links/mixed_precision.h"

#include "links/connection/convolution_nd.h"

namespace rensa::links {

namespace {
constexpr const char* kName = "Deconvolution2D";
}

Deconvolution2D::Deconvolution2D(std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                                 const Deconvolution2DOptions& options)
    : out_channels_{out_channels},
      ksize_{ksize.expand(2, kName, "ksize")},
      deconv_{detail::deconvolution_options(options, 2, kName)} {
    register_param("W", &Deconvolution2D::W, Parameter(detail::default_weight(options.initialW)));
    if (in_channels) initialize_params(*in_channels);
    if (!options.nobias) {
        register_param("b", &Deconvolution2D::b,
                       Parameter(detail::default_bias(options.initial_bias), Shape{out_channels_}));
    }
}

void Deconvolution2D::initialize_params(int64_t in_channels) {
    W.initialize(detail::deconvolution_weight_shape(kName, in_channels, out_channels_, ksize_, deconv_.groups));
}

Variable Deconvolution2D::forward(const Variable& x) {
    const int64_t channels = detail::input_channels(kName, x, 2);
    if (!W.is_initialized()) initialize_params(channels);
    detail::check_input_channels(kName, channels, W.shape()[0]);
    return F::deconvolution_2d(mixed16_input(x, W), W, b, deconv_);  // Note [Mixed precision inputs]
}

}  // namespace rensa::links
