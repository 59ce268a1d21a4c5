#include "core/ops/reduction.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"

namespace rensa::ops {
namespace {

Kernels& kernels_of(const Array& x) { return global_context().kernels(x.device()); }

// Normalised and sorted; all axes for std::nullopt. Bad or repeated axes throw DimensionError.
Axes resolve_axes(const Array& x, const OptionalAxes& axes, std::string_view op) {
    Axes out = axes ? normalize_axes(*axes, x.ndim(), op) : all_axes(x.ndim());
    std::sort(out.begin(), out.end());
    return out;
}

bool contains(const Axes& axes, int axis) { return std::find(axes.begin(), axes.end(), axis) != axes.end(); }

// x's shape with the reduced axes set to 1 (keepdims) or dropped.
Shape reduced_shape(const Shape& shape, const Axes& axes, bool keepdims) {
    Shape out;
    for (int d = 0; d < shape.size(); ++d) {
        if (!contains(axes, d)) {
            out.push_back(shape[d]);
        } else if (keepdims) {
            out.push_back(1);
        }
    }
    return out;
}

// Number of elements folded into each output.
int64_t reduction_count(const Shape& shape, const Axes& axes) {
    int64_t count = 1;
    for (const int a : axes) count *= shape[a];
    return count;
}

// max/min and friends have no identity: an empty reduction with outputs is an error.
void check_has_elements(const Array& x, const Axes& axes, std::string_view op, std::string_view ufunc) {
    const bool empty = reduction_count(x.shape(), axes) == 0 && shape_size(reduced_shape(x.shape(), axes, true)) != 0;
    RENSA_CHECK(!empty, ValueError, op, ": zero-size array to reduction operation ", ufunc,
                " which has no identity (shape ", x.shape(), ", axes ", axes, ")");
}

// Reduces x, cast to `dtype`, with op over sorted `axes`; without axes the values are copied.
Array reduce(ReduceOp op, const Array& x, const Axes& axes, bool keepdims, Dtype dtype) {
    if (axes.empty()) return x.astype(dtype);
    const Array input = x.astype(dtype, false);
    const Array out = Array::empty(reduced_shape(x.shape(), axes, true), dtype, x.device());
    kernels_of(x).reduce(op, input, axes, out);
    return keepdims ? out : out.reshape(reduced_shape(x.shape(), axes, false));
}

// sum/prod: bool and integers accumulate in int64, floats keep their dtype.
Dtype accumulation_dtype(Dtype dtype) { return is_float(dtype) ? dtype : Dtype::kInt64; }

// mean/var/logsumexp compute in float64 for bool and integers, float32 for float16/bfloat16.
Dtype float_compute_dtype(Dtype dtype) {
    if (!is_float(dtype)) return kDefaultFloat;
    return itemsize(dtype) == 2 ? Dtype::kFloat32 : dtype;
}
Dtype float_result_dtype(Dtype dtype) { return is_float(dtype) ? dtype : kDefaultFloat; }

Array arg_reduce(ArgReduceOp op, const Array& x, std::optional<int> axis, bool keepdims, std::string_view name) {
    if (!axis) {
        RENSA_CHECK(x.size() > 0, ValueError, name, ": attempt to get ", name, " of an empty sequence (shape ",
                    x.shape(), ")");
        const Array out = Array::empty({1}, Dtype::kInt64, x.device());
        kernels_of(x).arg_reduce(op, x.reshape({x.size()}), 0, out);
        return out.reshape(keepdims ? Shape(x.ndim(), 1) : Shape{});
    }
    const int a = normalize_axis(*axis, x.ndim(), name);
    const Shape kept = reduced_shape(x.shape(), {a}, true);
    RENSA_CHECK(x.shape()[a] > 0 || shape_size(kept) == 0, ValueError, name, ": attempt to get ", name,
                " of an empty sequence (shape ", x.shape(), ", axis ", *axis, ")");
    const Array out = Array::empty(kept, Dtype::kInt64, x.device());
    if (out.size() > 0) kernels_of(x).arg_reduce(op, x, a, out);
    return keepdims ? out : out.reshape(reduced_shape(x.shape(), {a}, false));
}

}  // namespace

Array sum(const Array& x, const OptionalAxes& axes, bool keepdims) {
    return reduce(ReduceOp::kSum, x, resolve_axes(x, axes, "sum"), keepdims, accumulation_dtype(x.dtype()));
}

Array prod(const Array& x, const OptionalAxes& axes, bool keepdims) {
    return reduce(ReduceOp::kProd, x, resolve_axes(x, axes, "prod"), keepdims, accumulation_dtype(x.dtype()));
}

Array max(const Array& x, const OptionalAxes& axes, bool keepdims) {
    const Axes a = resolve_axes(x, axes, "max");
    check_has_elements(x, a, "max", "maximum");
    return reduce(ReduceOp::kMax, x, a, keepdims, x.dtype());
}

Array min(const Array& x, const OptionalAxes& axes, bool keepdims) {
    const Axes a = resolve_axes(x, axes, "min");
    check_has_elements(x, a, "min", "minimum");
    return reduce(ReduceOp::kMin, x, a, keepdims, x.dtype());
}

Array any(const Array& x, const OptionalAxes& axes, bool keepdims) {
    return reduce(ReduceOp::kAny, x, resolve_axes(x, axes, "any"), keepdims, Dtype::kBool);
}

Array all(const Array& x, const OptionalAxes& axes, bool keepdims) {
    return reduce(ReduceOp::kAll, x, resolve_axes(x, axes, "all"), keepdims, Dtype::kBool);
}

Array mean(const Array& x, const OptionalAxes& axes, bool keepdims) {
    const Axes a = resolve_axes(x, axes, "mean");
    const Array total = reduce(ReduceOp::kSum, x, a, keepdims, float_compute_dtype(x.dtype()));
    // An empty reduction divides 0 by 0: NaN, as numpy.
    const auto count = static_cast<double>(reduction_count(x.shape(), a));
    return divide(total, Scalar(count)).astype(float_result_dtype(x.dtype()), false);
}

Array var(const Array& x, const OptionalAxes& axes, bool keepdims, int64_t ddof) {
    const Axes a = resolve_axes(x, axes, "var");
    const Array xc = x.astype(float_compute_dtype(x.dtype()), false);
    const int64_t count = reduction_count(x.shape(), a);
    const Array centred = subtract(xc, divide(reduce(ReduceOp::kSum, xc, a, true, xc.dtype()), Scalar(double(count))));
    const Array squares = reduce(ReduceOp::kSum, square(centred), a, keepdims, xc.dtype());
    // numpy divides by max(count - ddof, 0): inf or NaN when no degrees of freedom are left.
    const auto dof = static_cast<double>(std::max<int64_t>(count - ddof, 0));
    return divide(squares, Scalar(dof)).astype(float_result_dtype(x.dtype()), false);
}

Array logsumexp(const Array& x, const OptionalAxes& axes, bool keepdims) {
    const Axes a = resolve_axes(x, axes, "logsumexp");
    const Dtype result_dtype = float_result_dtype(x.dtype());
    if (reduction_count(x.shape(), a) == 0) {  // log(0): as scipy, no error
        return full(reduced_shape(x.shape(), a, keepdims), -std::numeric_limits<double>::infinity(), result_dtype,
                    x.device());
    }
    const Array xc = x.astype(float_compute_dtype(x.dtype()), false);
    // Subtract the max so exp cannot overflow; an infinite or NaN max is replaced by 0 so
    // that inf - inf does not turn +inf into NaN (the NaN still propagates through exp).
    const Array peak = reduce(ReduceOp::kMax, xc, a, true, xc.dtype());
    const Array shift = where(isfinite(peak), peak, Scalar(0.0));
    const Array total = reduce(ReduceOp::kSum, exp(subtract(xc, shift)), a, true, xc.dtype());
    const Array out = add(log(total), shift).astype(result_dtype, false);
    return keepdims ? out : out.reshape(reduced_shape(x.shape(), a, false));
}

Array argmax(const Array& x, std::optional<int> axis, bool keepdims) {
    return arg_reduce(ArgReduceOp::kArgMax, x, axis, keepdims, "argmax");
}

Array argmin(const Array& x, std::optional<int> axis, bool keepdims) {
    return arg_reduce(ArgReduceOp::kArgMin, x, axis, keepdims, "argmin");
}

Array cumsum(const Array& x, std::optional<int> axis) {
    const Array input = (axis ? x : x.reshape({x.size()})).astype(accumulation_dtype(x.dtype()), false);
    const int a = axis ? normalize_axis(*axis, x.ndim(), "cumsum") : 0;
    const Array out = Array::empty(input.shape(), input.dtype(), x.device());
    kernels_of(x).cumsum(input, a, out);
    return out;
}

}  // namespace rensa::ops
