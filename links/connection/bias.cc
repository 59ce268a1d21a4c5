#include "links/connection/bias.h"

#include "core/error.h"
#include "functions/math.h"
#include "links/initializers.h"

namespace rensa::links {

Bias::Bias(int axis, std::optional<Shape> shape) : axis_{axis} {
    if (shape) register_param("b", &Bias::b, Parameter(initializers::constant(0), *shape));
}

Variable Bias::forward(const Variable& x) {
    RENSA_CHECK(b.defined(), ValueError, "Bias: missing b parameter: give Bias a shape, or call it with (x, b)");
    return F::bias(x, b, axis_);
}

Variable Bias::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 1 || xs.size() == 2, ValueError, "Bias: takes (x) or (x, b), got ", xs.size(), " inputs");
    if (xs.size() == 1) return forward(xs[0]);
    return F::bias(xs[0], xs[1], axis_);
}

}  // namespace rensa::links
