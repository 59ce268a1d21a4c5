#include "links/connection/linear.h"
#include "links/mixed_precision.h"

#include "core/error.h"
#include "functions/connection.h"
#include "links/initializers.h"

namespace rensa::links {

Linear::Linear(std::optional<int64_t> in_size, std::optional<int64_t> out_size, bool nobias,
               initializers::InitializerPtr initialW, initializers::InitializerPtr initial_bias) {
    if (!out_size) {  // Linear(out_size): Chainer's shorthand with a lazy in_size
        out_size = in_size;
        in_size = std::nullopt;
    }
    RENSA_CHECK(out_size.has_value() && *out_size >= 0, ValueError, "Linear: out_size must be given and >= 0");
    RENSA_CHECK(!in_size || *in_size >= 0, ValueError, "Linear: in_size=", *in_size, " must be >= 0");
    out_size_ = *out_size;
    auto W_init = initializers::or_default(std::move(initialW), std::make_shared<initializers::LeCunNormal>());
    std::optional<Shape> W_shape;
    if (in_size) W_shape = Shape{out_size_, *in_size};
    register_param("W", &Linear::W, Parameter(W_init, W_shape));
    if (!nobias) {
        auto b_init = initializers::or_default(std::move(initial_bias), initializers::constant(0));
        register_param("b", &Linear::b, Parameter(b_init, Shape{out_size_}));
    }
}

std::optional<int64_t> Linear::in_size() const {
    if (!W.is_initialized()) return std::nullopt;
    return W.shape()[1];
}

Variable Linear::forward(const Variable& x) { return forward(x, 1); }

Variable Linear::forward(const Variable& x, int n_batch_axes) {
    RENSA_CHECK(n_batch_axes >= 1 && n_batch_axes <= x.ndim(), DimensionError, "Linear: n_batch_axes=", n_batch_axes,
                " does not fit x of shape ", x.shape());
    int64_t features = 1;
    for (int i = n_batch_axes; i < x.ndim(); ++i) features *= x.shape()[i];
    if (!W.is_initialized()) W.initialize(Shape{out_size_, features});
    RENSA_CHECK(W.shape()[1] == features, DimensionError, "Linear: x of shape ", x.shape(), " has ", features,
                " features after ", n_batch_axes, " batch axes, but in_size=", W.shape()[1]);
    return F::linear(mixed16_input(x, W), W, b, n_batch_axes);  // Note [Mixed precision inputs]
}

}  // namespace rensa::links
