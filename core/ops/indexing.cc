#include "core/ops/indexing.h"

#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/elementwise.h"

namespace rensa::ops {
namespace {

void check_same_device(std::string_view op, const Array& a, std::string_view a_name, const Array& b,
                       std::string_view b_name) {
    RENSA_CHECK(a.device() == b.device(), DeviceError, op, ": ", a_name, " is on ", a.device(), " but ", b_name,
                " is on ", b.device(), "; move them to one device with to_device");
}

// Indices as an int64 array on `device`, negatives wrapped into [0, size). Integer (and,
// like numpy's safe cast, bool) dtypes only.
//
// Note [Device index wrap]: indices on the host (the native device) are checked there, and an
// index outside [-size, size) throws IndexError, as numpy does. Indices that live on another
// device are not copied back to be checked (that would synchronise the device on every
// gather): they wrap modulo `size` on the device, as CuPy's take and advanced indexing do, so
// Chainer's CUDA path and rensa's pick the same element and no kernel reads out of bounds.
Array normalize_indices(std::string_view op, const Array& indices, int axis, int64_t size, Device device) {
    RENSA_CHECK(is_integral(indices.dtype()) || indices.dtype() == Dtype::kBool, DtypeError, op,
                ": indices must be an integer array, got dtype ", indices.dtype());
    if (indices.device().kind != DeviceKind::kNative) {
        RENSA_CHECK(size > 0 || indices.size() == 0, IndexError, op, ": cannot index axis ", axis, " of size 0");
        return mod(indices.astype(Dtype::kInt64, false), size > 0 ? size : 1).to_device(device);
    }
    std::vector<int64_t> values = indices.to_vector<int64_t>();
    for (int64_t& v : values) {
        RENSA_CHECK(v >= -size && v < size, IndexError, op, ": index ", v, " is out of bounds for axis ", axis,
                    " with size ", size);
        if (v < 0) v += size;
    }
    return Array::from_vector(values, indices.shape(), device);
}

// target.shape[:axis] + indices.shape + target.shape[axis+1:]
Shape gathered_shape(const Shape& shape, const Shape& indices_shape, int axis) {
    Shape out;
    for (int d = 0; d < axis; ++d) out.push_back(shape[d]);
    for (int64_t n : indices_shape) out.push_back(n);
    for (int d = axis + 1; d < shape.size(); ++d) out.push_back(shape[d]);
    return out;
}

// A target that maps several positions to one element (a zero stride, as broadcast_to
// makes) would receive racing writes.
void check_no_overlap(const Array& target) {
    for (int d = 0; d < target.ndim(); ++d) {
        RENSA_CHECK(target.shape()[d] <= 1 || target.strides()[d] != 0, ValueError, "scatter_add: target of shape ",
                    target.shape(), " repeats its elements along axis ", d,
                    " (a broadcast view); scatter into a copy instead");
    }
}

}  // namespace

Array take(const Array& x, const Array& indices, std::optional<int> axis) {
    check_same_device("take", x, "x", indices, "indices");
    const Array src = axis ? x : x.ravel();
    const int a = normalize_axis(axis.value_or(0), src.ndim(), "take");
    const Array idx = normalize_indices("take", indices, a, src.shape()[a], src.device());
    Array out = Array::empty(gathered_shape(src.shape(), idx.shape(), a), src.dtype(), src.device());
    if (out.size() > 0) global_context().kernels(src.device()).take({.x = src, .indices = idx, .axis = a, .out = out});
    return out;
}

void scatter_add(const Array& target, const Array& indices, const Array& values, int axis) {
    check_same_device("scatter_add", target, "target", indices, "indices");
    check_same_device("scatter_add", target, "target", values, "values");
    const int a = normalize_axis(axis, target.ndim(), "scatter_add");
    check_no_overlap(target);
    check_writeable(target, "scatter_add");
    const Array idx = normalize_indices("scatter_add", indices, a, target.shape()[a], target.device());
    const Shape shape = gathered_shape(target.shape(), idx.shape(), a);
    const Shape broadcast = broadcast_shapes(values.shape(), shape, "scatter_add");
    RENSA_CHECK(broadcast == shape, DimensionError, "scatter_add: values of shape ", values.shape(),
                " cannot be broadcast to ", shape, " (target.shape[:axis] + indices.shape + target.shape[axis+1:])");
    Array vals = values.astype(target.dtype(), /*copy=*/false);
    if (vals.storage() == target.storage()) vals = vals.copy();  // overlapping: read before writing
    if (shape_size(shape) == 0) return;
    global_context()
        .kernels(target.device())
        .scatter_add({.target = target, .indices = idx, .axis = a, .values = vals.broadcast_to(shape)});
}

}  // namespace rensa::ops
