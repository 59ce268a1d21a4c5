// rrelu: Chainer's randomized leaky ReLU, y = x where x >= 0, r * x elsewhere, as x times a
// constant slope array, so its gradient and double backprop are autograd's.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

// The r of Chainer's RReLU.forward: in training a given r as is, else U(l, u) noise of x's
// shape; in test mode always (l + u) / 2, even when r was given (Chainer overwrites it).
Array choose_r(const Variable& x, double l, double u, const Array& r) {
    if (!config().train) return ops::full(x.shape(), Scalar((l + u) / 2), x.dtype(), x.device());
    if (r.defined()) return r;
    return ops::uniform(x.shape(), l, u, Dtype::kFloat64, x.device()).astype(x.dtype(), false);
}

}  // namespace

std::pair<Variable, Array> rrelu_with_r(const Variable& x, double l, double u, const Array& r) {
    expect_float(x, "rrelu", "x");
    if (r.defined()) {
        const Variable r_var(r, false);  // a constant view, for the checks
        expect_same_dtype(x, r_var, "rrelu", "x", "r");
        expect_same_shape(x, r_var, "rrelu", "x", "r");
    }
    Array slope_r = choose_r(x, l, u, r);
    const Array slope = ops::where(ops::greater_equal(x.array(), Scalar(0.0)), Scalar(1.0), slope_r);
    return {x * activation_detail::constant(slope), std::move(slope_r)};
}

Variable rrelu(const Variable& x, double l, double u, const Array& r) { return rrelu_with_r(x, l, u, r).first; }

}  // namespace rensa::functions
