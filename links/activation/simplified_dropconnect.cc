#include "links/activation/simplified_dropconnect.h"

#include <cmath>

#include "core/error.h"
#include "functions/noise.h"
#include "links/initializers.h"

namespace rensa::links {

SimplifiedDropconnect::SimplifiedDropconnect(std::optional<int64_t> in_size, int64_t out_size, double ratio,
                                             bool nobias, initializers::InitializerPtr initialW,
                                             initializers::InitializerPtr initial_bias)
    : out_size_{out_size}, ratio_{ratio} {
    RENSA_CHECK(out_size >= 0, ValueError, "SimplifiedDropconnect: out_size=", out_size, " must be >= 0");
    RENSA_CHECK(!in_size || *in_size >= 0, ValueError, "SimplifiedDropconnect: in_size=", in_size.value_or(0),
                " must be >= 0");
    auto W_init =
        initializers::or_default(std::move(initialW), std::make_shared<initializers::HeNormal>(1.0 / std::sqrt(2.0)));
    std::optional<Shape> W_shape;
    if (in_size) W_shape = Shape{out_size, *in_size};
    register_param("W", &SimplifiedDropconnect::W, Parameter(W_init, W_shape));
    if (!nobias) {
        auto b_init = initializers::or_default(std::move(initial_bias), initializers::constant(0));
        register_param("b", &SimplifiedDropconnect::b, Parameter(b_init, Shape{out_size}));
    }
}

Variable SimplifiedDropconnect::forward(const Variable& x, bool train, const Array& mask, bool use_batchwise_mask) {
    if (!W.is_initialized()) {
        RENSA_CHECK(x.ndim() >= 1 && x.shape()[0] > 0, DimensionError,
                    "SimplifiedDropconnect: Expect: a non-empty batch to learn in_size from, Actual: x.shape ",
                    x.shape());
        W.initialize(Shape{out_size_, x.size() / x.shape()[0]});
    }
    // Chainer registers the first mask it is given as the persistent `mask` (saved in NPZ files
    // as mask); later calls use the mask they are given.
    if (mask.defined() && !has_mask_) {
        add_persistent("mask", mask);
        has_mask_ = true;
    }
    return F::simplified_dropconnect(x, W, b, ratio_, train, mask, use_batchwise_mask);
}

}  // namespace rensa::links
