#pragma once
// The oneDNN path of the native bfloat16 gemm (Note [bf16 gemm]) and a report of which
// bfloat16 path this CPU has, for rensa.print_runtime_info().

#include <string>

#include "core/array.h"

namespace rensa::native {

// c = alpha * a @ b + beta * c for bfloat16 logical (batch, m, k) a, (batch, k, n) b and
// (batch, m, n) c with m, n, k > 0, accumulated in float32 and rounded once into c. Returns
// false, having written nothing, where oneDNN is not built in, the CPU has no native bf16
// dot products, or oneDNN has no JIT kernel for the operands' strides; the caller then
// computes through float32 temporaries.
bool dnnl_gemm_bf16(const Array& a, const Array& b, const Array& c, double alpha, double beta);

// One line: the bfloat16 gemm path, oneDNN's effective ISA on this CPU and whether its
// bfloat16 dot products are native (avx512_core_bf16, AMX) or emulated. A CPUID query, no JIT.
std::string bf16_gemm_info();

}  // namespace rensa::native
