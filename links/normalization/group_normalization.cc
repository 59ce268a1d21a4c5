#include "links/normalization/group_normalization.h"

#include "core/error.h"
#include "functions/normalization.h"
#include "links/mixed_precision.h"

namespace rensa::links {

GroupNormalization::GroupNormalization(int64_t groups, std::optional<int64_t> size, double eps,
                                       initializers::InitializerPtr initial_gamma,
                                       initializers::InitializerPtr initial_beta)
    : groups{groups}, eps{eps} {
    RENSA_CHECK(groups > 0, ValueError, "GroupNormalization: groups must be positive, got ", groups);
    // float32 parameters under mixed16 / mixed_bf16 (Chainer's map_mixed16); See Note [Mixed precision inputs].
    register_param("gamma", &GroupNormalization::gamma,
                   Parameter(initializers::or_default(std::move(initial_gamma), initializers::constant(1)),
                             std::nullopt, mixed16_high_precision_dtype()));
    register_param("beta", &GroupNormalization::beta,
                   Parameter(initializers::or_default(std::move(initial_beta), initializers::constant(0)), std::nullopt,
                             mixed16_high_precision_dtype()));
    if (size) {
        gamma.initialize(Shape{*size});
        beta.initialize(Shape{*size});
    }
}

Variable GroupNormalization::forward(const Variable& x) {
    if (!gamma.is_initialized()) {
        RENSA_CHECK(x.ndim() >= 2, DimensionError,
                    "GroupNormalization: input dimension must be at least 2, including the batch axis, got shape ",
                    x.shape());
        gamma.initialize(Shape{x.shape()[1]});
        beta.initialize(Shape{x.shape()[1]});
    }
    return F::group_normalization(x, groups, param_in_dtype(gamma, x.dtype()), param_in_dtype(beta, x.dtype()), eps);
}

}  // namespace rensa::links
