// bilinear: Chainer's bilinear function, composed of differentiable pieces (an outer
// product of e1 and e2 rows fed to linear against W viewed as (J*K, L)), so it is
// differentiable any number of times without a gradient node of its own.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/connection.h"

namespace rensa::functions {
namespace {

int64_t trailing_size(const Variable& x) {
    int64_t n = 1;
    for (int d = 1; d < x.ndim(); ++d) n *= x.shape()[d];
    return n;
}

void check_bilinear(const Variable& e1, const Variable& e2, const Variable& W) {
    expect_float(e1, "bilinear", "e1");
    expect_same_dtype(e2, e1, "bilinear", "e2", "e1");
    expect_same_dtype(W, e1, "bilinear", "W", "e1");
    RENSA_CHECK(e1.ndim() >= 2 && e2.ndim() >= 2, DimensionError, "bilinear: Expect: e1.ndim >= 2 and e2.ndim >= 2, ",
                "Actual: ", e1.ndim(), ", ", e2.ndim());
    RENSA_CHECK(e1.shape()[0] == e2.shape()[0], DimensionError, "bilinear: Expect: e1.shape[0] == e2.shape[0], ",
                "Actual: ", e1.shape()[0], " != ", e2.shape()[0]);
    expect_ndim(W, 3, "bilinear", "W");
    RENSA_CHECK(trailing_size(e1) == W.shape()[0], DimensionError,
                "bilinear: Expect: prod(e1.shape[1:]) == W.shape[0], Actual: ", trailing_size(e1),
                " != ", W.shape()[0]);
    RENSA_CHECK(trailing_size(e2) == W.shape()[1], DimensionError,
                "bilinear: Expect: prod(e2.shape[1:]) == W.shape[1], Actual: ", trailing_size(e2),
                " != ", W.shape()[1]);
}

void check_coefficients(const Variable& e1, const Variable& W, const Variable& V1, const Variable& V2,
                        const Variable& b) {
    expect_same_dtype(V1, e1, "bilinear", "V1", "e1");
    expect_same_dtype(V2, e1, "bilinear", "V2", "e1");
    expect_same_dtype(b, e1, "bilinear", "b", "e1");
    const Shape v1_shape{W.shape()[0], W.shape()[2]}, v2_shape{W.shape()[1], W.shape()[2]};
    expect_shape(V1, v1_shape, "bilinear", "V1");
    expect_shape(V2, v2_shape, "bilinear", "V2");
    RENSA_CHECK(b.ndim() == 1 && b.shape()[0] == W.shape()[2], DimensionError, "bilinear: Expect: b.shape == (",
                W.shape()[2], ",), Actual: ", b.shape());
}

}  // namespace

Variable bilinear(const Variable& e1, const Variable& e2, const Variable& W, const Variable& V1, const Variable& V2,
                  const Variable& b) {
    const int given = int{V1.defined()} + int{V2.defined()} + int{b.defined()};
    RENSA_CHECK(given == 0 || given == 3, ValueError, "bilinear: All coefficients and bias for bilinear() must be ",
                "None, if at least one of them is None.");
    check_bilinear(e1, e2, W);
    if (given == 3) check_coefficients(e1, W, V1, V2, b);
    const int64_t n = e1.shape()[0], j = W.shape()[0], k = W.shape()[1], l = W.shape()[2];
    const Variable e1f = rensa::reshape(e1, {n, j}), e2f = rensa::reshape(e2, {n, k});
    const Variable outer = rensa::reshape(e1f, {n, j, 1}) * rensa::reshape(e2f, {n, 1, k});
    Variable y = linear(rensa::reshape(outer, {n, j * k}), transpose(rensa::reshape(W, {j * k, l})));
    if (given == 0) return y;
    return y + linear(e1f, transpose(V1)) + linear(e2f, transpose(V2), b);
}

}  // namespace rensa::functions
