#pragma once
// What links do under 16-bit mixed precision (config().mixed16 with config().dtype float16
// or bfloat16: Chainer's mixed16 and rensa's mixed_bf16). See Note [Mixed precision inputs].

#include <optional>

#include "autograd/variable.h"
#include "links/parameter.h"

namespace rensa::links {

// The dtype of a parameter or statistic that stays in float32 under mixed precision
// (Chainer's get_dtype(None, map_mixed16=float32)): float32 under config().mixed16, else
// nullopt (the Parameter takes config().dtype). Read when the link is constructed.
[[nodiscard]] std::optional<Dtype> mixed16_high_precision_dtype();

// `x` cast to `param`'s dtype when config().mixed16 is on, both are floating point, param
// is initialised and the dtypes differ (a float32 batch fed to a bfloat16 Linear); `x`
// itself otherwise, so mismatches outside mixed precision still reach the function's check.
// Differentiable: the grad of x comes back in x's dtype.
[[nodiscard]] Variable mixed16_input(const Variable& x, const Parameter& param);

// `param` as a Variable of `dtype` when `param` is float32 and `dtype` is float16 or bfloat16
// (a float32 normalisation parameter applied to a 16-bit input): a differentiable cast whose
// grad reaches the parameter in float32. `param` itself otherwise (other mismatches still
// reach the function's dtype check).
[[nodiscard]] Variable param_in_dtype(const Parameter& param, Dtype dtype);

}  // namespace rensa::links
