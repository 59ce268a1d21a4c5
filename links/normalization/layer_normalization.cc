#include "links/normalization/layer_normalization.h"

#include "core/error.h"
#include "functions/normalization.h"
#include "links/mixed_precision.h"

namespace rensa::links {

LayerNormalization::LayerNormalization(std::optional<int64_t> size, double eps,
                                       initializers::InitializerPtr initial_gamma,
                                       initializers::InitializerPtr initial_beta)
    : eps{eps} {
    register_param("gamma", &LayerNormalization::gamma,
                   Parameter(initializers::or_default(std::move(initial_gamma), initializers::constant(1)),
                             std::nullopt, mixed16_high_precision_dtype()));
    register_param("beta", &LayerNormalization::beta,
                   Parameter(initializers::or_default(std::move(initial_beta), initializers::constant(0)), std::nullopt,
                             mixed16_high_precision_dtype()));
    if (size) {
        gamma.initialize(Shape{*size});
        beta.initialize(Shape{*size});
    }
}

Variable LayerNormalization::forward(const Variable& x) {
    if (!gamma.is_initialized()) {
        RENSA_CHECK(x.ndim() >= 2, DimensionError,
                    "LayerNormalization: the input needs a batch axis and units, got shape ", x.shape());
        const int64_t in_size = x.size() / x.shape()[0];
        gamma.initialize(Shape{in_size});
        beta.initialize(Shape{in_size});
    }
    return F::layer_normalization(x, param_in_dtype(gamma, x.dtype()), param_in_dtype(beta, x.dtype()), eps);
}

}  // namespace rensa::links
