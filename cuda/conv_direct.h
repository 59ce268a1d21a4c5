#pragma once
// Direct convolution kernels, one thread per output element, accumulating in float32
// (float64 for float64): the fallback when cuDNN offers no algorithm for a problem or
// reports it unsupported at run time (and what tests force to check it). Every operand
// (x, w, b, gy) and output is contiguous; shapes and parameters as in core/kernels.h.
// Private to kernels_conv.cc.

#include "core/kernels.h"

namespace rensa::cuda {

void direct_convolution(int device, const ConvolutionArgs& args);
void direct_convolution_backward_data(int device, const ConvolutionBackwardDataArgs& args);
void direct_convolution_backward_filter(int device, const ConvolutionBackwardFilterArgs& args);

// Process-wide switch: run the direct kernels instead of cuDNN (tests; off by default).
void set_force_direct_convolution(bool force);
bool force_direct_convolution();

}  // namespace rensa::cuda
