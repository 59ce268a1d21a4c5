#pragma once
// Shared by the convolution files of functions/connection (not a public header).

#include <string>

#include "autograd/variable.h"
#include "functions/connection/convolution.h"

namespace rensa::functions::detail {

// Chainer's type checks of x, W and b; ndim = 0 accepts 1 to 3 spatial dims.
void check_convolution_inputs(const Variable& x, const Variable& W, const Variable& b, int ndim, const std::string& op);
// The convolution / deconvolution of `op` after its type checks (ndim as above).
Variable convolution(const Variable& x, const Variable& W, const Variable& b, const ConvolutionOptions& options,
                     int ndim, const std::string& op);
Variable deconvolution(const Variable& x, const Variable& W, const Variable& b, const DeconvolutionOptions& options,
                       int ndim, const std::string& op);

}  // namespace rensa::functions::detail
