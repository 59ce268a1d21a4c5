// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::random(const RandomArgs&) { RENSA_THROW(NotImplementedError, "random"); }
}  // namespace rensa::native
