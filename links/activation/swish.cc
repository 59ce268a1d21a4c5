#include "links/activation/swish.h"

#include "core/error.h"
#include "functions/activation.h"
#include "links/initializers.h"

namespace rensa::links {

Swish::Swish(std::optional<Shape> beta_shape, double beta_init) {
    register_param("beta", &Swish::beta, Parameter(initializers::constant(beta_init), std::move(beta_shape)));
}

Variable Swish::forward(const Variable& x) {
    if (!beta.is_initialized()) {
        RENSA_CHECK(x.ndim() >= 1, DimensionError, "Swish: Expect: x.ndim >= 1, Actual: 0");
        Shape shape;
        for (int d = 1; d < x.ndim(); ++d) shape.push_back(x.shape()[d]);
        beta.initialize(shape);
    }
    return F::swish(x, beta);
}

}  // namespace rensa::links
