// sort and argsort: validate the axis, allocate the output and call the device's sort.

#include "core/ops/sort.h"

#include "core/backend.h"

namespace rensa::ops {

Array sort(const Array& x, int axis) {
    const int ax = normalize_axis(axis, x.ndim(), "sort");
    Array values = Array::empty(x.shape(), x.dtype(), x.device());
    if (x.size() == 0) return values;
    global_context().kernels(x.device()).sort({.x = x, .axis = ax, .values = values, .indices = Array{}});
    return values;
}

Array argsort(const Array& x, int axis) {
    const int ax = normalize_axis(axis, x.ndim(), "argsort");
    Array indices = Array::empty(x.shape(), Dtype::kInt64, x.device());
    if (x.size() == 0) return indices;
    global_context().kernels(x.device()).sort({.x = x, .axis = ax, .values = Array{}, .indices = indices});
    return indices;
}

}  // namespace rensa::ops
