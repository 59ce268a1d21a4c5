// Normalization kernels (replaced by the real kernels of this family).

#include "core/error.h"
#include "core/native/native_kernels.h"

namespace rensa::native {

void NativeKernels::batch_norm(const BatchNormArgs&) {
    RENSA_THROW(NotImplementedError, "batch_norm: native kernel not written yet");
}
void NativeKernels::batch_norm_backward(const BatchNormBackwardArgs&) {
    RENSA_THROW(NotImplementedError, "batch_norm_backward: native kernel not written yet");
}

}  // namespace rensa::native
