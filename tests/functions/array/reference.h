#pragma once
// Float64 references shared by the array-function tests: naive loops over to_doubles.

#include <vector>

#include "tests/testing/function_check.h"

namespace rensa::testing::array_ref {

// out[i] = x[source(i)] for every multi-index i of `shape`.
template <class Fn>
Array gather(const Array& x, const Shape& shape, Fn&& source) {
    return f64(gather_reference(to_doubles(x), x.shape(), shape, source), shape);
}

// numpy.concatenate of float64 arrays along `axis`.
inline Array concat(const Arrays& xs, int axis) {
    Shape shape = xs[0].shape();
    shape[axis] = 0;
    for (const Array& x : xs) shape[axis] += x.shape()[axis];
    std::vector<double> out(static_cast<size_t>(shape_size(shape)));
    for (int64_t i = 0; i < shape_size(shape); ++i) {
        std::vector<int64_t> idx = unravel(i, shape);
        size_t k = 0;
        while (idx[static_cast<size_t>(axis)] >= xs[k].shape()[axis])
            idx[static_cast<size_t>(axis)] -= xs[k++].shape()[axis];
        out[static_cast<size_t>(i)] = to_doubles(xs[k])[static_cast<size_t>(ravel(idx, xs[k].shape()))];
    }
    return f64(out, shape);
}

// x[..., start:stop, ...] on `axis` (float64, contiguous).
inline Array slice_axis(const Array& x, int axis, int64_t start, int64_t stop) {
    Shape shape = x.shape();
    shape[axis] = stop - start;
    return gather(x, shape, [&](std::vector<int64_t> idx) {
        idx[static_cast<size_t>(axis)] += start;
        return idx;
    });
}

}  // namespace rensa::testing::array_ref
