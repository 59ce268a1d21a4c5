#include "links/connection/parameter_link.h"

#include "core/error.h"
#include "functions/math.h"

namespace rensa::links {

ParameterLink::ParameterLink(const Array& array) {
    RENSA_CHECK(array.defined(), ValueError, "Parameter: Expect: an array, Actual: undefined");
    register_param("W", &ParameterLink::W, Parameter(array));
}

Variable ParameterLink::forward() { return F::identity(W); }

Variable ParameterLink::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.empty(), ValueError,
                "Parameter: Expect: no inputs (it returns its parameter W), Actual: ", xs.size(), " inputs");
    return forward();
}

}  // namespace rensa::links
