// dilated_convolution_2d: Chainer's name for convolution_2d with a dilation.

#include "functions/connection.h"
#include "functions/connection/detail.h"

namespace rensa::functions {

Variable dilated_convolution_2d(const Variable& x, const Variable& W, const Variable& b,
                                const DilatedConvolutionOptions& options) {
    return detail::convolution(
        x, W, b,
        {.stride = options.stride, .pad = options.pad, .cover_all = options.cover_all, .dilate = options.dilate}, 4,
        "dilated_convolution_2d");
}

}  // namespace rensa::functions
