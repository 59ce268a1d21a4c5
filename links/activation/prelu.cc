#include "links/activation/prelu.h"

#include "functions/activation.h"

namespace rensa::links {

PReLU::PReLU(Shape shape, initializers::InitializerPtr init) {
    register_param("W", &PReLU::W,
                   Parameter(initializers::or_default(std::move(init), initializers::constant(0.25)), shape));
}

Variable PReLU::forward(const Variable& x) { return F::prelu(x, W); }

}  // namespace rensa::links
