#pragma once
// The arithmetic of gradient-bucket reductions (internal). Floating dtypes only. Sums run in
// the compute type (float for float16/bfloat16/float32, double for float64), the sources
// in the order given, and the result is rounded once, so every rank that computes a slice
// from the same inputs gets the same bits, and a float16/bfloat16 bucket accumulates in
// float32. Sources may alias destinations.

#include <cstdint>
#include <span>

#include "core/dtype.h"

namespace rensa::distributed::detail {

// dsts[d][i] = scale * (srcs[0][i] + srcs[1][i] + ...) for every d and i < count.
void sum_into(Dtype dtype, std::span<const void* const> srcs, std::span<void* const> dsts, int64_t count, double scale);

// dst[i] = src[i] for i < count between float32 and float16/bfloat16 (either way; rounding to
// nearest even), both contiguous host memory: the cast of a grad into its half-size bucket
// and back, in one vectorised pass. False (nothing done) for any other pair of dtypes.
bool convert(Dtype src_dtype, const void* src, Dtype dst_dtype, void* dst, int64_t count);

// One reduce step of a ring all-reduce: own[i] = (own[i] + in[i]) * scale when `first`
// (both are raw contributions), else own[i] * scale + in[i] (`in` is a partial sum that
// already carries the scale). Every contribution is scaled exactly once, so partial sums
// stay in the range of the mean (float16 does not overflow on the way).
void ring_accumulate(Dtype dtype, void* own, const void* in, int64_t count, double scale, bool first);

}  // namespace rensa::distributed::detail
