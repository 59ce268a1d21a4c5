#pragma once
// Which convolution problems cuDNN can take (host only; see cuda/kernels_conv.cc).

#include "core/shape.h"

namespace rensa::cuda {

// Whether cuDNN's own output size of x (n, c_in, *in) with w (c_out, c_in / groups, *k)
// is y's (n, c_out, *out) in every spatial dimension: floor((in + 2 pad - dilated k) /
// stride) + 1, Chainer's get_conv_outsize without cover_all. cover_all, and a
// deconvolution's outsize beyond that floor, give other sizes; cuDNN rejects those
// descriptors (CUDNN_STATUS_BAD_PARAM), so they go to the direct kernels.
bool cudnn_output_size_matches(const Shape& x, const Shape& w, const Shape& y, const Shape& stride, const Shape& pad,
                               const Shape& dilate);

}  // namespace rensa::cuda
