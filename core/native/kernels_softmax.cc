// Softmax kernels (replaced by the real kernels of this family).

#include "core/error.h"
#include "core/native/native_kernels.h"

namespace rensa::native {

void NativeKernels::softmax(const SoftmaxArgs&) {
    RENSA_THROW(NotImplementedError, "softmax: native kernel not written yet");
}

}  // namespace rensa::native
