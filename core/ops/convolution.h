#pragma once
// N-D convolution (1 to 3 spatial dimensions) on arrays, in Chainer's layout: x (n, c_in,
// *in), w (c_out, c_in / groups, *k), y (n, c_out, *out), b (c_out) or undefined. See
// Note [Convolution layout] in core/kernels.h. Every operand must share one floating
// dtype (DtypeError) and one device; bad ranks, channels or sizes throw DimensionError,
// bad strides/pads/dilations/groups ValueError.

#include <cstdint>
#include <string_view>

#include "core/array.h"

namespace rensa::ops {

// One entry of stride, pad and dilate per spatial dimension.
struct ConvolutionParams {
    Shape stride, pad, dilate;
    int64_t groups = 1;
    bool cover_all = false;  // Chainer's cover_all: one more output where the last window is partial
};

// Chainer's get_conv_outsize: output length of one spatial dimension.
int64_t conv_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all = false, int64_t d = 1);
// Chainer's get_deconv_outsize: the input length a convolution maps to `size`.
int64_t deconv_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all = false, int64_t d = 1);

// y = convolution of x with w (+ b). `op` names the caller in error messages.
[[nodiscard]] Array convolution(const Array& x, const Array& w, const Array& b, const ConvolutionParams& params,
                                std::string_view op = "convolution");
// The transpose of the convolution: gx (n, c_in, *x_size) from gy (n, c_out, *out) and
// w; also deconvolution's forward (without bias). x_size must map to gy's size.
[[nodiscard]] Array convolution_backward_data(const Array& gy, const Array& w, const Shape& x_size,
                                              const ConvolutionParams& params,
                                              std::string_view op = "convolution_backward_data");
// gw (c_out, c_in / groups, *k_size) = d(sum(convolution(x, w) * gy)) / dw.
[[nodiscard]] Array convolution_backward_filter(const Array& x, const Array& gy, const Shape& k_size,
                                                const ConvolutionParams& params,
                                                std::string_view op = "convolution_backward_filter");

}  // namespace rensa::ops
