// Convolution kernels (replaced by the real kernels of this family).

#include "core/error.h"
#include "core/native/native_kernels.h"

namespace rensa::native {

void NativeKernels::convolution(const ConvolutionArgs&) {
    RENSA_THROW(NotImplementedError, "convolution: native kernel not written yet");
}
void NativeKernels::convolution_backward_data(const ConvolutionBackwardDataArgs&) {
    RENSA_THROW(NotImplementedError, "convolution_backward_data: native kernel not written yet");
}
void NativeKernels::convolution_backward_filter(const ConvolutionBackwardFilterArgs&) {
    RENSA_THROW(NotImplementedError, "convolution_backward_filter: native kernel not written yet");
}

}  // namespace rensa::native
