#pragma once
// Softmax and log-softmax along one axis through the device's softmax kernel, computed
// stably (the maximum is subtracted first); float16/bfloat16 compute in float32.

#include "core/array.h"

namespace rensa::ops {

// exp(x) / sum(exp(x), axis): a new contiguous array of x's shape and dtype. x must be
// floating point (DtypeError); a bad axis (or a 0-d x) throws DimensionError.
[[nodiscard]] Array softmax(const Array& x, int axis = 1);
// x - logsumexp(x, axis), with the same contract as softmax.
[[nodiscard]] Array log_softmax(const Array& x, int axis = 1);

}  // namespace rensa::ops
