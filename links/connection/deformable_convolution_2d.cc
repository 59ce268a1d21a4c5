#include "links/connection/deformable_convolution_2d.h"

#include "core/error.h"
#include "links/connection/convolution_nd.h"
#include "links/initializers.h"

namespace rensa::links {

namespace {
constexpr const char* kSampler = "DeformableConvolution2DSampler";
}

DeformableConvolution2DSampler::DeformableConvolution2DSampler(std::optional<int64_t> in_channels, int64_t out_channels,
                                                               F::IntOrTuple ksize,
                                                               const DeformableConvolution2DSamplerOptions& options)
    : out_channels_{out_channels},
      ksize_{ksize.expand(2, kSampler, "ksize")},
      stride_{options.stride.expand(2, kSampler, "stride")},
      pad_{options.pad.expand(2, kSampler, "pad")} {
    RENSA_CHECK(ksize_[0] > 0 && ksize_[1] > 0, ValueError, kSampler, ": Expect: ksize > 0, Actual: ", ksize_);
    register_param("W", &DeformableConvolution2DSampler::W,
                   Parameter(initializers::or_default(options.initialW, initializers::constant(0))));
    if (in_channels) W.initialize(Shape{out_channels_, *in_channels, ksize_[0], ksize_[1]});
    if (!options.nobias) {
        register_param("b", &DeformableConvolution2DSampler::b,
                       Parameter(detail::default_bias(options.initial_bias), Shape{out_channels_}));
    }
}

Variable DeformableConvolution2DSampler::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, kSampler, ": Expect: two inputs (x, offset), Actual: ", xs.size());
    const int64_t channels = detail::input_channels(kSampler, xs[0], 2);
    if (!W.is_initialized()) W.initialize(Shape{out_channels_, channels, ksize_[0], ksize_[1]});
    detail::check_input_channels(kSampler, channels, W.shape()[1]);
    return F::deformable_convolution_2d_sampler(xs[0], xs[1], W, b, stride_, pad_);
}

DeformableConvolution2D::DeformableConvolution2D(std::optional<int64_t> in_channels, int64_t out_channels,
                                                 F::IntOrTuple ksize, const DeformableConvolution2DOptions& options) {
    const Shape k = ksize.expand(2, "DeformableConvolution2D", "ksize");
    register_link("offset_conv", &DeformableConvolution2D::offset_conv,
                  std::make_shared<Convolution2D>(in_channels, 2 * k[0] * k[1], k,
                                                  Convolution2DOptions{.stride = options.stride,
                                                                       .pad = options.pad,
                                                                       .nobias = options.offset_nobias,
                                                                       .initialW = options.offset_initialW,
                                                                       .initial_bias = options.offset_initial_bias}));
    register_link("deform_conv", &DeformableConvolution2D::deform_conv,
                  std::make_shared<DeformableConvolution2DSampler>(
                      in_channels, out_channels, k,
                      DeformableConvolution2DSamplerOptions{.stride = options.stride,
                                                            .pad = options.pad,
                                                            .nobias = options.deform_nobias,
                                                            .initialW = options.deform_initialW,
                                                            .initial_bias = options.deform_initial_bias}));
}

Variable DeformableConvolution2D::forward(const Variable& x) { return (*deform_conv)(x, (*offset_conv)(x)); }

}  // namespace rensa::links
