#pragma once
// Matrix products through the device's GEMM (OpenBLAS on the native backend;
// float16/bfloat16 are computed in float32). Promotion as numpy; mismatched inner
// dimensions throw DimensionError naming both shapes.

#include "core/array.h"

namespace rensa::ops {

// numpy.matmul: 1-D operands are promoted and the added axis removed; leading (batch)
// dimensions broadcast. 0-d operands throw DimensionError.
[[nodiscard]] Array matmul(const Array& a, const Array& b);
// numpy.dot for 0-D, 1-D and 2-D operands (N-D: sum over a's last and b's second-to-last axis).
[[nodiscard]] Array dot(const Array& a, const Array& b);
// Batched matmul of 3-D (batch, m, k) x (batch, k, n), with optional transposes of the matrices.
[[nodiscard]] Array batch_matmul(const Array& a, const Array& b, bool trans_a = false, bool trans_b = false);

}  // namespace rensa::ops
