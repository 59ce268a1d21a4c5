#include "autograd/basic_math.h"
#include "autograd/shape_ops.h"
#include "functions/activation.h"
#include "functions/activation/common.h"

namespace rensa::functions {
namespace {

// beta (shape x.shape[1:1 + beta.ndim]) as (1, *beta.shape, 1, ...) broadcast to x's shape.
Variable broadcast_beta(const Variable& beta, const Shape& x_shape) {
    Shape shape{1};
    for (const int64_t d : beta.shape()) shape.push_back(d);
    while (shape.size() < x_shape.size()) shape.push_back(1);
    return broadcast_to(reshape(beta, shape), x_shape);
}

}  // namespace

// A composition of differentiable pieces: y = x * sigmoid(beta * x).
Variable swish(const Variable& x, const Variable& beta) {
    activation_detail::check_float_input("swish", "x", x);
    activation_detail::check_float_input("swish", "beta", beta);
    RENSA_CHECK(x.dtype() == beta.dtype(), DtypeError,
                "swish: Expect: x.dtype == beta.dtype, Actual: ", dtype_name(x.dtype()),
                " != ", dtype_name(beta.dtype()));
    RENSA_CHECK(x.ndim() >= beta.ndim() + 1, DimensionError,
                "swish: Expect: x.ndim >= beta.ndim + 1, Actual: ", x.ndim(), " < ", beta.ndim() + 1);
    for (int d = 0; d < beta.ndim(); ++d) {
        RENSA_CHECK(x.shape()[d + 1] == beta.shape()[d], DimensionError,
                    "swish: Expect: x.shape[1:1 + beta.ndim] == ", "beta.shape, Actual: x.shape ", x.shape(),
                    ", beta.shape ", beta.shape());
    }
    return x * sigmoid(broadcast_beta(beta, x.shape()) * x);
}

}  // namespace rensa::functions
