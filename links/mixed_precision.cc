// Note [Mixed precision inputs]: under mixed16 / mixed_bf16 the links that multiply by a
// weight (Linear, Convolution1D/2D/3D/ND, Deconvolution2D/ND) cast a floating input of
// another dtype to their weight's dtype, as PyTorch's autocast casts: Chainer's MNIST example
// feeds float32 images to a model whose parameters are 16-bit, and with the cast it runs
// unchanged; without it F::linear refuses the mixed dtypes (Chainer's mixed16 users cast
// by hand). Outside the mixed config nothing is cast, so a dtype mismatch is still an error.
// EmbedID's output has its W's dtype already. Normalisation links keep float32 parameters
// and statistics (Chainer's map_mixed16=float32) and apply them to a 16-bit input through
// a differentiable cast to the input's dtype; the statistics are computed in float32 by the
// kernels (ops::batch_norm_stat_dtype). The losses compute in float32 for 16-bit scores and
// return the loss in the scores' dtype, as Chainer returns float16 for float16 scores.

#include "links/mixed_precision.h"

#include "autograd/modes.h"
#include "functions/array.h"

namespace rensa::links {

std::optional<Dtype> mixed16_high_precision_dtype() {
    return config().mixed16 ? std::optional<Dtype>{Dtype::kFloat32} : std::nullopt;
}

Variable mixed16_input(const Variable& x, const Parameter& param) {
    if (!config().mixed16 || !x.defined() || !param.is_initialized()) return x;
    const Dtype target = param.dtype();
    if (x.dtype() == target || !is_float(x.dtype()) || !is_float(target)) return x;
    return F::cast(x, target);
}

Variable param_in_dtype(const Parameter& param, Dtype dtype) {
    const bool half = dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16;
    if (!half || !param.defined() || !param.is_initialized() || param.dtype() != Dtype::kFloat32) return param;
    return F::cast(param, dtype);
}

}  // namespace rensa::links
