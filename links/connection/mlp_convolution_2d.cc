#include "links/connection/mlp_convolution_2d.h"

#include <memory>

#include "core/error.h"

namespace rensa::links {

MLPConvolution2D::MLPConvolution2D(std::optional<int64_t> in_channels, const std::vector<int64_t>& out_channels,
                                   F::IntOrTuple ksize, const MLPConvolution2DOptions& options)
    : activation_{options.activation} {
    RENSA_CHECK(!out_channels.empty(), ValueError, "MLPConvolution2D: out_channels must not be empty");
    RENSA_CHECK(activation_ != nullptr, ValueError, "MLPConvolution2D: activation must be a function");
    const Convolution2DOptions first{
        .stride = options.stride, .pad = options.pad, .initialW = options.conv_init, .initial_bias = options.bias_init};
    add_link(std::make_shared<Convolution2D>(in_channels, out_channels[0], std::move(ksize), first));
    const Convolution2DOptions rest{.initialW = options.conv_init, .initial_bias = options.bias_init};
    for (size_t i = 1; i < out_channels.size(); ++i) {
        add_link(std::make_shared<Convolution2D>(out_channels[i - 1], out_channels[i], 1, rest));
    }
}

Variable MLPConvolution2D::forward(const Variable& x) {
    Variable h = x;
    const int64_t n = size();
    for (int64_t i = 0; i < n; ++i) {
        h = (*this)[i](h);
        if (i + 1 < n) h = activation_(h);
    }
    return h;
}

}  // namespace rensa::links
