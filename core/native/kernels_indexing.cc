// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::take(const TakeArgs&) { RENSA_THROW(NotImplementedError, "take"); }
void NativeKernels::scatter_add(const ScatterAddArgs&) { RENSA_THROW(NotImplementedError, "scatter_add"); }
}  // namespace rensa::native
