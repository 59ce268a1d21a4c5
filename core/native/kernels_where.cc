// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::where(const Array&, const Array&, const Array&, const Array&) { RENSA_THROW(NotImplementedError, "where"); }
}  // namespace rensa::native
