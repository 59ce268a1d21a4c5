// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::reduce(ReduceOp, const Array&, const Axes&, const Array&) { RENSA_THROW(NotImplementedError, "reduce"); }
void NativeKernels::arg_reduce(ArgReduceOp, const Array&, int, const Array&) { RENSA_THROW(NotImplementedError, "reduce"); }
}  // namespace rensa::native
