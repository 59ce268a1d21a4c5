// Pooling kernels (replaced by the real kernels of this family).

#include "core/error.h"
#include "core/native/native_kernels.h"

namespace rensa::native {

void NativeKernels::pool(const PoolArgs&) { RENSA_THROW(NotImplementedError, "pool: native kernel not written yet"); }
void NativeKernels::pool_backward(const PoolBackwardArgs&) {
    RENSA_THROW(NotImplementedError, "pool_backward: native kernel not written yet");
}

}  // namespace rensa::native
