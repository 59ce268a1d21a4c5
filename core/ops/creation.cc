#include "core/ops/creation.h"

#include <cmath>
#include <vector>

#include "core/error.h"

namespace rensa::ops {

Array empty(const Shape& shape, Dtype dtype, Device device) { return Array::empty(shape, dtype, device); }

Array full(const Shape& shape, Scalar value, std::optional<Dtype> dtype, Device device) {
    Array out = Array::empty(shape, dtype.value_or(value.default_dtype()), device);
    out.fill(value);
    return out;
}

Array zeros(const Shape& shape, Dtype dtype, Device device) { return full(shape, 0, dtype, device); }
Array ones(const Shape& shape, Dtype dtype, Device device) { return full(shape, 1, dtype, device); }

Array empty_like(const Array& a, std::optional<Dtype> dtype) {
    return Array::empty(a.shape(), dtype.value_or(a.dtype()), a.device());
}
Array zeros_like(const Array& a, std::optional<Dtype> dtype) { return full_like(a, 0, dtype); }
Array ones_like(const Array& a, std::optional<Dtype> dtype) { return full_like(a, 1, dtype); }
Array full_like(const Array& a, Scalar value, std::optional<Dtype> dtype) {
    return full(a.shape(), value, dtype.value_or(a.dtype()), a.device());
}

namespace {

// Integer arange counts in integers so that bounds beyond 2^53 stay exact.
Array arange_int(int64_t start, int64_t stop, int64_t step, Dtype dtype, Device device) {
    RENSA_CHECK(step != 0, ValueError, "arange: step must not be zero");
    const __int128 span = static_cast<__int128>(stop) - start;
    const __int128 n128 = span / step + (span % step != 0 ? 1 : 0);
    const auto n = static_cast<int64_t>(n128 > 0 ? n128 : 0);
    std::vector<int64_t> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = start + i * step;
    return Array::from_vector(values, {n}, device).astype(dtype, false);
}

}  // namespace

Array arange(Scalar start, Scalar stop, Scalar step, std::optional<Dtype> dtype, Device device) {
    const bool all_int =
        start.kind() != ScalarKind::kFloat && stop.kind() != ScalarKind::kFloat && step.kind() != ScalarKind::kFloat;
    if (all_int) return arange_int(start.to_int(), stop.to_int(), step.to_int(), dtype.value_or(Dtype::kInt64), device);
    const double d_step = step.to_double();
    RENSA_CHECK(d_step != 0.0, ValueError, "arange: step must not be zero");
    const double span = stop.to_double() - start.to_double();
    const auto n = static_cast<int64_t>(std::max(0.0, std::ceil(span / d_step)));
    std::vector<double> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        values[static_cast<size_t>(i)] = start.to_double() + static_cast<double>(i) * d_step;
    return Array::from_vector(values, {n}, device).astype(dtype.value_or(Dtype::kFloat64), false);
}

Array arange(Scalar stop, std::optional<Dtype> dtype, Device device) {
    return arange(stop.kind() == ScalarKind::kFloat ? Scalar{0.0} : Scalar{0}, stop, 1, dtype, device);
}

Array linspace(double start, double stop, int64_t num, bool endpoint, Dtype dtype, Device device) {
    RENSA_CHECK(num >= 0, ValueError, "linspace: num must be non-negative, got ", num);
    const int64_t div = endpoint ? num - 1 : num;
    const double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
    std::vector<double> values(static_cast<size_t>(num));
    for (int64_t i = 0; i < num; ++i) values[static_cast<size_t>(i)] = start + static_cast<double>(i) * step;
    if (endpoint && num > 1) values.back() = stop;
    return Array::from_vector(values, {num}, device).astype(dtype, false);
}

Array eye(int64_t n, std::optional<int64_t> m, int64_t k, Dtype dtype, Device device) {
    const int64_t cols = m.value_or(n);
    RENSA_CHECK(n >= 0 && cols >= 0, ValueError, "eye: negative dimensions (", n, ", ", cols, ")");
    Array out = zeros({n, cols}, dtype, device);
    const int64_t row0 = k >= 0 ? 0 : -k;
    const int64_t col0 = k >= 0 ? k : 0;
    const int64_t len = std::max<int64_t>(0, std::min(n - row0, cols - col0));
    if (len > 0) {  // the diagonal as a strided view: one step is one row plus one column
        const int64_t item = itemsize(dtype);
        const Array diag(out.storage(), {len}, {(cols + 1) * item}, (row0 * cols + col0) * item, dtype);
        diag.fill(1);
    }
    return out;
}

}  // namespace rensa::ops
