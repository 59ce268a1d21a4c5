// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::unary(UnaryOp, const Array&, const Array&) { RENSA_THROW(NotImplementedError, "unary"); }
}  // namespace rensa::native
