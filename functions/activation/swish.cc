#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

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
    expect_float(x, "swish", "x");
    expect_float(beta, "swish", "beta");
    expect_same_dtype(x, beta, "swish", "x", "beta");
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
