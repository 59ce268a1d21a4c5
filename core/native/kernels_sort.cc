// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::sort(const SortArgs&) { RENSA_THROW(NotImplementedError, "sort"); }
}  // namespace rensa::native
