// average: Chainer's F.average, a (weighted) mean over axes, composed of differentiable
// functions so double backprop comes for free.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "functions/math.h"

namespace rensa::functions {

Variable average(const Variable& x, const std::optional<Axes>& axis, const Variable& weights, bool keepdims) {
    const char* f = "average";
    expect_float(x, f, "x");
    const std::optional<Axes> axes = axis ? std::optional<Axes>{normalize_axes(*axis, x.ndim(), f)} : std::nullopt;
    if (!weights.defined()) return mean(x, axes, keepdims);
    expect_same_dtype(x, weights, f, "x", "weights");
    if (!axes) {
        expect_same_shape(weights, x, f, "weights", "x");
        return sum(x * weights, std::nullopt, keepdims) / sum(weights);
    }
    // Chainer: "tuple axis is not supported when weights is given".
    RENSA_CHECK(axes->size() == 1, ValueError, f, ": Expect: one axis when weights is given, Actual: axis ", *axis);
    const int a = (*axes)[0];
    expect_shape(weights, Shape{x.shape()[a]}, f, "weights");
    return sum(scale(x, weights, a), Axes{a}, keepdims) / sum(weights);
}

Variable average(const Variable& x, int axis, const Variable& weights, bool keepdims) {
    return average(x, std::optional<Axes>{Axes{axis}}, weights, keepdims);
}

}  // namespace rensa::functions
