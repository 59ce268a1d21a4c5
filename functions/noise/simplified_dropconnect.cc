// simplified_dropconnect: Chainer's linear unit with a random mask on W, composed of
// differentiable pieces (reshape, broadcast, product with a constant mask, sum, linear), so
// its gradients in x, W and b and double backprop are autograd's.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "functions/connection.h"
#include "functions/math.h"
#include "functions/noise.h"

namespace rensa::functions {
namespace {

void check_inputs(const Variable& x, const Variable& W, const Variable& b, double ratio) {
    expect_float(x, "simplified_dropconnect", "x");
    expect_float(W, "simplified_dropconnect", "W");
    expect_same_dtype(x, W, "simplified_dropconnect", "x", "W");
    RENSA_CHECK(ratio >= 0.0 && ratio < 1.0, ValueError,
                "simplified_dropconnect: Expect: 0 <= ratio < 1, Actual: ", ratio);
    RENSA_CHECK(x.ndim() >= 2 && W.ndim() == 2, DimensionError,
                "simplified_dropconnect: Expect: x.ndim >= 2 and W.ndim == 2, Actual: x.shape ", x.shape(),
                ", W.shape ", W.shape());
    int64_t features = 1;
    for (int d = 1; d < x.ndim(); ++d) features *= x.shape()[d];
    RENSA_CHECK(features == W.shape()[1], DimensionError,
                "simplified_dropconnect: Expect: prod(x.shape[1:]) == W.shape[1], Actual: x.shape ", x.shape(),
                ", W.shape ", W.shape());
    if (!b.defined()) return;
    expect_same_dtype(x, b, "simplified_dropconnect", "x", "b");
    RENSA_CHECK(b.ndim() == 1 && b.shape()[0] == W.shape()[0], DimensionError,
                "simplified_dropconnect: Expect: b.shape == (W.shape[0],), Actual: b.shape ", b.shape(), ", W.shape ",
                W.shape());
}

// The mask as 0/1 in W's dtype: the given one (checked against the expected shape) or
// U(0, 1) >= ratio, as Chainer draws it.
Array make_mask(const Array& mask, const Shape& shape, const Variable& W, double ratio) {
    if (!mask.defined()) {
        return ops::greater_equal(ops::uniform(shape, 0.0, 1.0, Dtype::kFloat64, W.device()), Scalar(ratio))
            .astype(W.dtype(), false);
    }
    RENSA_CHECK(mask.shape() == shape, DimensionError, "simplified_dropconnect: Expect: mask.shape == ", shape,
                ", Actual: ", mask.shape());
    return ops::not_equal(mask, Scalar(0.0)).astype(W.dtype(), false);
}

}  // namespace

Variable simplified_dropconnect(const Variable& x, const Variable& W, const Variable& b, double ratio, bool train,
                                const Array& mask, bool use_batchwise_mask) {
    check_inputs(x, W, b, ratio);
    if (!train) ratio = 0.0;
    const int64_t n = x.shape()[0], m = W.shape()[0], k = W.shape()[1];
    const Shape mask_shape = use_batchwise_mask ? Shape{n, m, k} : Shape{m, k};
    const Variable kept(ops::multiply(make_mask(mask, mask_shape, W, ratio), Scalar(1.0 / (1.0 - ratio))), false);
    const Variable x2 = reshape(x, {n, k});
    if (!use_batchwise_mask) return linear(x2, W * kept, b);
    // y[s, j] = sum_i W[j, i] mask[s, j, i] x[s, i] / (1 - ratio), as Chainer's batched matmul.
    const Variable weighted = broadcast_to(reshape(W, {1, m, k}), mask_shape) * kept;
    Variable y = sum(weighted * broadcast_to(reshape(x2, {n, 1, k}), mask_shape), 2);
    if (b.defined()) y = y + broadcast_to(reshape(b, {1, m}), {n, m});
    return y;
}

}  // namespace rensa::functions
