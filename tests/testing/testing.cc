#include "tests/testing/testing.h"

#include <catch2/catch.hpp>
#include <sstream>

namespace rensa::testing {

std::string layout_name(Layout layout) {
    switch (layout) {
        case Layout::kContiguous:
            return "contiguous";
        case Layout::kStrided:
            return "strided";
        case Layout::kTransposed:
            return "transposed";
        case Layout::kOffset:
            return "offset";
    }
    return "?";
}

Array make_array(const std::vector<double>& values, const Shape& shape, Dtype dtype, Layout layout) {
    const Array base = Array::from_vector(values, shape).astype(dtype);
    return with_layout(base, layout);
}

Array with_layout(const Array& a, Layout layout) {
    switch (layout) {
        case Layout::kContiguous:
            return a.copy();
        case Layout::kStrided: {
            if (a.ndim() == 0) return a.copy();
            Shape big = a.shape();
            big.back() *= 2;
            const Array buffer = Array::empty(big, a.dtype());
            buffer.fill(0);
            std::vector<Index> idx(static_cast<size_t>(a.ndim() - 1), Slice{});
            idx.push_back(Slice{std::nullopt, std::nullopt, 2});
            const Array view = buffer.index(idx);
            view.assign(a);
            return view;
        }
        case Layout::kTransposed: {
            const Array t = a.transpose().copy();
            return t.transpose();
        }
        case Layout::kOffset: {
            const Array buffer = Array::empty({a.size() + 1}, a.dtype());
            buffer.fill(0);
            const Array view = buffer.index({Slice{1, std::nullopt, 1}}).reshape(a.shape());
            view.assign(a);
            return view;
        }
    }
    return a;
}

std::vector<double> iota(int64_t n, double scale, double shift) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>(i) * scale + shift;
    return v;
}

std::vector<double> sample(Dtype dtype, int64_t n, int64_t seed) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) {
        const double x = static_cast<double>((i * 7 + seed * 5 + 3) % 11);
        if (dtype == Dtype::kBool) {
            v.push_back(static_cast<double>(static_cast<int64_t>(x) % 2));
        } else if (is_float(dtype)) {
            v.push_back(x - 4.5);
        } else {
            v.push_back(is_signed(dtype) ? x - 5 : x);
        }
    }
    return v;
}

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
    std::vector<int64_t> index(static_cast<size_t>(shape.size()));
    for (int d = shape.size() - 1; d >= 0; --d) {
        index[static_cast<size_t>(d)] = flat % shape[d];
        flat /= shape[d];
    }
    return index;
}

int64_t ravel(const std::vector<int64_t>& index, const Shape& shape) {
    int64_t flat = 0;
    for (int d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[static_cast<size_t>(d)];
    return flat;
}

std::vector<double> to_doubles(const Array& a) { return a.to_vector<double>(); }

std::vector<int64_t> channel_ids(const Shape& shape, const Axes& axes, int64_t* channels) {
    Shape kept;
    std::vector<int> kept_axes;
    for (int i = 0; i < shape.size(); ++i) {
        bool reduced = false;
        for (int a : axes) reduced = reduced || a == i;
        if (!reduced) {
            kept.push_back(shape[i]);
            kept_axes.push_back(i);
        }
    }
    if (channels != nullptr) *channels = shape_size(kept);
    std::vector<int64_t> ids;
    for (int64_t f = 0; f < shape_size(shape); ++f) {
        const std::vector<int64_t> idx = unravel(f, shape);
        std::vector<int64_t> k;
        for (int a : kept_axes) k.push_back(idx[static_cast<size_t>(a)]);
        ids.push_back(ravel(k, kept));
    }
    return ids;
}

Tolerance tolerance(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
            return {1e-3, 1e-3};
        case Dtype::kBFloat16:
            return {1e-2, 1e-2};
        case Dtype::kFloat32:
            return {1e-5, 1e-5};
        case Dtype::kFloat64:
            return {1e-12, 1e-12};
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            return {0.0, 0.0};
    }
    return {0.0, 0.0};
}

void check_allclose(const Array& actual, const std::vector<double>& expected, const Shape& shape, Tolerance tol) {
    INFO("actual shape " << actual.shape() << ", expected shape " << shape);
    REQUIRE(actual.shape() == shape);
    const std::vector<double> got = to_doubles(actual);
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = got[i], e = expected[i];
        const bool both_nan = std::isnan(g) && std::isnan(e);
        const bool same_inf = std::isinf(e) && g == e;
        const bool close = both_nan || same_inf || std::abs(g - e) <= tol.atol + tol.rtol * std::abs(e);
        if (!close) {
            std::ostringstream os;
            os << "mismatch at flat index " << i << ": got " << g << ", expected " << e << " (atol " << tol.atol
               << ", rtol " << tol.rtol << ", dtype " << actual.dtype() << ")";
            FAIL(os.str());
        }
    }
}

void check_allclose(const Array& actual, const Array& expected, Tolerance tol) {
    check_allclose(actual, to_doubles(expected), expected.shape(), tol);
}

void check_allclose(const Array& actual, const Array& expected) {
    check_allclose(actual, expected, tolerance(actual.dtype()));
}

}  // namespace rensa::testing
