#include "core/shape.h"

#include <limits>

#include "core/error.h"

namespace rensa {

int64_t shape_size(const Shape& shape) {
    int64_t size = 1;
    for (int64_t dim : shape) {
        RENSA_CHECK(dim >= 0, ValueError, "shape ", shape, " has a negative dimension");
        int64_t next = 0;
        RENSA_CHECK(!__builtin_mul_overflow(size, dim, &next), ValueError, "shape ", shape,
                    " has more elements than int64 can count");
        size = next;
    }
    return size;
}

Strides contiguous_strides(const Shape& shape, int64_t itemsize) {
    Strides strides(shape.size(), 0);
    int64_t stride = itemsize;
    for (int i = shape.size() - 1; i >= 0; --i) {
        strides[i] = stride;
        stride *= std::max<int64_t>(shape[i], 1);
    }
    return strides;
}

int normalize_axis(int64_t axis, int ndim, std::string_view op) {
    RENSA_CHECK(axis >= -ndim && axis < ndim, DimensionError, op, ": axis ", axis,
                " is out of bounds for an array of dimension ", ndim);
    return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

Axes normalize_axes(const Axes& axes, int ndim, std::string_view op) {
    Axes out;
    bool seen[kMaxNdim] = {};
    for (int axis : axes) {
        const int a = normalize_axis(axis, ndim, op);
        RENSA_CHECK(!seen[a], DimensionError, op, ": repeated axis ", axis, " in ", axes);
        seen[a] = true;
        out.push_back(a);
    }
    return out;
}

Axes all_axes(int ndim) {
    Axes axes;
    for (int i = 0; i < ndim; ++i) axes.push_back(i);
    return axes;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op) {
    const int ndim = std::max(a.size(), b.size());
    Shape out(ndim, 1);
    for (int i = 0; i < ndim; ++i) {
        const int ia = a.size() - ndim + i;
        const int ib = b.size() - ndim + i;
        const int64_t da = ia >= 0 ? a[ia] : 1;
        const int64_t db = ib >= 0 ? b[ib] : 1;
        RENSA_CHECK(da == db || da == 1 || db == 1, DimensionError, op, ": shapes ", a, " and ", b,
                    " cannot be broadcast");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

namespace {
template <class V>
std::ostream& print_tuple(std::ostream& os, const V& v) {
    os << '(';
    for (int i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    return os << (v.size() == 1 ? ",)" : ")");
}
}  // namespace

std::ostream& operator<<(std::ostream& os, const Shape& shape) { return print_tuple(os, shape); }
std::ostream& operator<<(std::ostream& os, const Axes& axes) { return print_tuple(os, axes); }

}  // namespace rensa
