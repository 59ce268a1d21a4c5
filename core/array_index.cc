// Array::index: numpy's basic indexing (integers, slices, None, Ellipsis) as views.

#include "core/array.h"
#include "core/error.h"

namespace rensa {
namespace {

struct SliceRange {
    int64_t start, length, step;
};

// numpy's PySlice_AdjustIndices.
SliceRange resolve_slice(const Slice& s, int64_t dim) {
    RENSA_CHECK(s.step != 0, ValueError, "index: slice step cannot be zero");
    const int64_t step = s.step;
    auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
        if (!v) return dflt;
        int64_t x = *v;
        if (x < 0) {
            x += dim;
            if (x < 0) x = step < 0 ? -1 : 0;
        } else if (x >= dim) {
            x = step < 0 ? dim - 1 : dim;
        }
        return x;
    };
    const int64_t start = clamp(s.start, step < 0 ? dim - 1 : 0);
    const int64_t stop = clamp(s.stop, step < 0 ? -1 : dim);
    int64_t length = 0;
    if (step > 0 && stop > start) length = (stop - start + step - 1) / step;
    if (step < 0 && start > stop) length = (start - stop + (-step) - 1) / (-step);
    return {start, length, step};
}

int count_consumed(const std::vector<Index>& indices) {
    int consumed = 0, ellipses = 0;
    for (const Index& idx : indices) {
        if (std::holds_alternative<int64_t>(idx) || std::holds_alternative<Slice>(idx)) ++consumed;
        if (std::holds_alternative<Ellipsis>(idx)) ++ellipses;
    }
    RENSA_CHECK(ellipses <= 1, IndexError, "index: an index can only have a single ellipsis ('...')");
    return consumed;
}

}  // namespace

Array Array::index(const std::vector<Index>& indices) const {
    const int consumed = count_consumed(indices);
    RENSA_CHECK(consumed <= ndim(), IndexError, "index: too many indices for array: array is ", ndim(),
                "-dimensional, but ", consumed, " were indexed");
    Shape shape;
    Strides strides;
    int64_t offset = offset_;
    int dim = 0;
    for (const Index& idx : indices) {
        if (const auto* i = std::get_if<int64_t>(&idx)) {
            const int64_t n = shape_[dim];
            RENSA_CHECK(*i >= -n && *i < n, IndexError, "index: index ", *i, " is out of bounds for axis ", dim,
                        " with size ", n, " (shape ", shape_, ")");
            offset += (*i < 0 ? *i + n : *i) * strides_[dim];
            ++dim;
        } else if (const auto* s = std::get_if<Slice>(&idx)) {
            const SliceRange r = resolve_slice(*s, shape_[dim]);
            if (r.length > 0) offset += r.start * strides_[dim];
            shape.push_back(r.length);
            strides.push_back(strides_[dim] * r.step);
            ++dim;
        } else if (std::holds_alternative<NewAxis>(idx)) {
            shape.push_back(1);
            strides.push_back(0);
        } else {  // Ellipsis: as many full slices as the other terms leave
            for (int k = 0; k < ndim() - consumed; ++k, ++dim) {
                shape.push_back(shape_[dim]);
                strides.push_back(strides_[dim]);
            }
        }
    }
    for (; dim < ndim(); ++dim) {
        shape.push_back(shape_[dim]);
        strides.push_back(strides_[dim]);
    }
    return Array(storage_, shape, strides, offset, dtype_);
}

}  // namespace rensa
