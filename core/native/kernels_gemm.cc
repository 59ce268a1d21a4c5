// PLACEHOLDER: replaced by the real kernels.
#include "core/error.h"
#include "core/native/native_kernels.h"
namespace rensa::native {
void NativeKernels::gemm(const GemmArgs&) { RENSA_THROW(NotImplementedError, "gemm"); }
}  // namespace rensa::native
