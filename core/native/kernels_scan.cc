// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::cumsum(const Array&, int, const Array&) { RENSA_THROW(NotImplementedError, "cumsum"); }
}  // namespace rensa::native
