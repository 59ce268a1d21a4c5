// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::binary(BinaryOp, const Array&, const Array&, const Array&) { RENSA_THROW(NotImplementedError, "binary"); }
void NativeKernels::binary_scalar(BinaryOp, const Array&, Scalar, bool, const Array&) { RENSA_THROW(NotImplementedError, "binary"); }
}  // namespace rensa::native
