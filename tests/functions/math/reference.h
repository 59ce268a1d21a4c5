#pragma once
// Float64 references for the math family's tests, written with naive loops over
// to_doubles (independent of rensa's functions and ops).

#include <functional>
#include <optional>
#include <vector>

#include "tests/testing/function_check.h"

namespace rensa::testing::math_reference {

// numpy broadcasting of two shapes (assumed compatible).
inline Shape broadcast(const Shape& a, const Shape& b) {
    const int n = std::max(a.size(), b.size());
    Shape out(n, 1);
    for (int i = 0; i < n; ++i) {
        const int ia = i - (n - a.size()), ib = i - (n - b.size());
        const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        out[i] = da == 1 ? db : da;
    }
    return out;
}

// The flat position in `shape` of output index `index` (of a broadcast result).
inline int64_t source(const std::vector<int64_t>& index, const Shape& shape) {
    std::vector<int64_t> src;
    const size_t lead = index.size() - static_cast<size_t>(shape.size());
    for (int d = 0; d < shape.size(); ++d) src.push_back(shape[d] == 1 ? 0 : index[lead + static_cast<size_t>(d)]);
    return ravel(src, shape);
}

// f(a, b) elementwise with broadcasting.
inline Array binary(const Array& a, const Array& b, const std::function<double(double, double)>& f) {
    const Shape out = broadcast(a.shape(), b.shape());
    const std::vector<double> va = to_doubles(a), vb = to_doubles(b);
    std::vector<double> v;
    for (int64_t i = 0; i < shape_size(out); ++i) {
        const auto index = unravel(i, out);
        v.push_back(
            f(va[static_cast<size_t>(source(index, a.shape()))], vb[static_cast<size_t>(source(index, b.shape()))]));
    }
    return f64(v, out);
}

// The reduction of x over `axes` (all without) with `init` and `combine`, then `finish`
// applied to (accumulated value, number of elements reduced).
inline Array reduce(
    const Array& x, const std::optional<Axes>& axes, bool keepdims, double init,
    const std::function<double(double, double)>& combine,
    const std::function<double(double, int64_t)>& finish = [](double v, int64_t) { return v; }) {
    std::vector<bool> reduced(static_cast<size_t>(x.ndim()), !axes.has_value());
    if (axes) {
        for (int a : *axes) reduced[static_cast<size_t>(a < 0 ? a + x.ndim() : a)] = true;
    }
    Shape kept, out;
    int64_t count = 1;
    for (int d = 0; d < x.ndim(); ++d) {
        kept.push_back(reduced[static_cast<size_t>(d)] ? 1 : x.shape()[d]);
        if (!reduced[static_cast<size_t>(d)]) out.push_back(x.shape()[d]);
        if (reduced[static_cast<size_t>(d)]) count *= x.shape()[d];
    }
    std::vector<double> acc(static_cast<size_t>(shape_size(kept)), init);
    const std::vector<double> v = to_doubles(x);
    for (int64_t i = 0; i < x.size(); ++i) {
        auto index = unravel(i, x.shape());
        for (int d = 0; d < x.ndim(); ++d) {
            if (reduced[static_cast<size_t>(d)]) index[static_cast<size_t>(d)] = 0;
        }
        double& a = acc[static_cast<size_t>(ravel(index, kept))];
        a = combine(a, v[static_cast<size_t>(i)]);
    }
    for (double& a : acc) a = finish(a, count);
    return f64(acc, keepdims ? kept : out);
}

// (m, k) @ (k, n) of 2-D float64 arrays.
inline Array matmul2d(const Array& a, const Array& b) {
    const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
    const std::vector<double> va = to_doubles(a), vb = to_doubles(b);
    std::vector<double> out(static_cast<size_t>(m * n), 0.0);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t p = 0; p < k; ++p)
                out[static_cast<size_t>(i * n + j)] +=
                    va[static_cast<size_t>(i * k + p)] * vb[static_cast<size_t>(p * n + j)];
        }
    }
    return f64(out, {m, n});
}

// The 2-D transpose of a 2-D float64 array.
inline Array transpose2d(const Array& a) {
    const std::vector<double> v = to_doubles(a);
    const int64_t m = a.shape()[0], n = a.shape()[1];
    std::vector<double> out;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) out.push_back(v[static_cast<size_t>(i * n + j)]);
    }
    return f64(out, {n, m});
}

}  // namespace rensa::testing::math_reference
