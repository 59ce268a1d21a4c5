#include "links/connection/scale.h"

#include "core/error.h"
#include "functions/math.h"
#include "links/initializers.h"

namespace rensa::links {

Scale::Scale(int axis, std::optional<Shape> W_shape, bool bias_term, std::optional<Shape> bias_shape) : axis_{axis} {
    if (W_shape) {
        register_param("W", &Scale::W, Parameter(initializers::constant(1), *W_shape));
        if (bias_term) register_link("bias", &Scale::bias, std::make_shared<Bias>(axis, *W_shape));
    } else if (bias_term) {
        RENSA_CHECK(bias_shape.has_value(), ValueError,
                    "Scale: bias_shape must be given when W is not a learnt parameter and bias_term is true");
        register_link("bias", &Scale::bias, std::make_shared<Bias>(axis, *bias_shape));
    }
}

Variable Scale::add_bias(const Variable& z) { return bias ? (*bias)(z) : z; }

Variable Scale::forward(const Variable& x) {
    RENSA_CHECK(W.defined(), ValueError, "Scale: missing W parameter: give Scale a W_shape, or call it with (x, y)");
    return add_bias(F::scale(x, W, axis_));
}

Variable Scale::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 1 || xs.size() == 2, ValueError, "Scale: takes (x) or (x, y), got ", xs.size(), " inputs");
    if (xs.size() == 1) return forward(xs[0]);
    RENSA_CHECK(!W.defined(), ValueError, "Scale: has a W parameter and takes only (x), got (x, y)");
    return add_bias(F::scale(xs[0], xs[1], axis_));
}

}  // namespace rensa::links
