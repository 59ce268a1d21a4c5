#pragma once
// Chainer's convolution functions: convolution_2d / convolution_nd, deconvolution_2d /
// deconvolution_nd and depthwise_convolution_2d. Layout as Chainer (channels first):
// x (n, c_in, *in); convolution W (c_out, c_in / groups, *k); deconvolution W (c_in,
// c_out / groups, *k); b (c_out) or an undefined Variable (None). Inputs share one float
// dtype (DtypeError); ranks, channel counts and groups that do not fit throw
// DimensionError. All are differentiable twice (backward is built from these functions).

#include <cstdint>
#include <initializer_list>
#include <optional>

#include "autograd/variable.h"

namespace rensa::functions {

// An int or one int per spatial dimension, as Chainer's `stride=2` or `stride=(2, 1)`.
struct IntOrTuple {
    IntOrTuple(int64_t v) : values{v} {}  // NOLINT(google-explicit-constructor): keyword-argument style
    IntOrTuple(std::initializer_list<int64_t> v) : values(v) {}
    IntOrTuple(const Shape& v) : values(v) {}  // NOLINT(google-explicit-constructor)
    Shape values;
    // One entry per spatial dim; throws ValueError naming `what` when the length is wrong.
    Shape expand(int ndim, const char* op, const char* what) const;
};

struct ConvolutionOptions {
    IntOrTuple stride = 1;
    IntOrTuple pad = 0;
    bool cover_all = false;  // one more output where the last window would be partial
    IntOrTuple dilate = 1;
    int64_t groups = 1;
};

struct DeconvolutionOptions {
    IntOrTuple stride = 1;
    IntOrTuple pad = 0;
    std::optional<Shape> outsize{};  // default: the smallest size (Chainer's get_deconv_outsize)
    IntOrTuple dilate = 1;
    int64_t groups = 1;
};

struct DepthwiseConvolutionOptions {
    IntOrTuple stride = 1;
    IntOrTuple pad = 0;
};

// 2-D convolution of x (n, c_in, h, w) with W (c_out, c_in / groups, kh, kw) (+ b).
[[nodiscard]] Variable convolution_2d(const Variable& x, const Variable& W, const Variable& b = Variable(),
                                      const ConvolutionOptions& options = {});
// N-D convolution (1 to 3 spatial dims): x (n, c_in, *in), W (c_out, c_in / groups, *k).
[[nodiscard]] Variable convolution_nd(const Variable& x, const Variable& W, const Variable& b = Variable(),
                                      const ConvolutionOptions& options = {});
// 2-D transposed convolution: x (n, c_in, h, w), W (c_in, c_out / groups, kh, kw) -> (n, c_out, *outsize).
[[nodiscard]] Variable deconvolution_2d(const Variable& x, const Variable& W, const Variable& b = Variable(),
                                        const DeconvolutionOptions& options = {});
// N-D transposed convolution (1 to 3 spatial dims).
[[nodiscard]] Variable deconvolution_nd(const Variable& x, const Variable& W, const Variable& b = Variable(),
                                        const DeconvolutionOptions& options = {});
// Depthwise 2-D convolution: x (n, c_in, h, w), W (multiplier, c_in, kh, kw), b (multiplier
// * c_in); output channel c * multiplier + m convolves x's channel c with W[m, c].
[[nodiscard]] Variable depthwise_convolution_2d(const Variable& x, const Variable& W, const Variable& b = Variable(),
                                                const DepthwiseConvolutionOptions& options = {});

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
