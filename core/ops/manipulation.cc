// Joining, splitting and rearranging: views of the inputs copied (Array::assign) into
// slices of a freshly allocated output; repeat with per-element counts gathers with take.

#include "core/ops/manipulation.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/ops/indexing.h"

namespace rensa::ops {
namespace {

// Indices selecting [start, stop) on `axis` and everything elsewhere.
std::vector<Index> slice_on(int axis, std::optional<int64_t> start, std::optional<int64_t> stop) {
    std::vector<Index> idx(static_cast<size_t>(axis), Slice{});
    idx.push_back(Slice{start, stop, 1});
    return idx;
}

void check_joinable(std::string_view op, const std::vector<Array>& arrays) {
    RENSA_CHECK(!arrays.empty(), ValueError, op, ": need at least one array to ", op);
    for (size_t i = 1; i < arrays.size(); ++i) {
        RENSA_CHECK(arrays[i].device() == arrays[0].device(), DeviceError, op, ": array 0 is on ", arrays[0].device(),
                    " but array ", i, " is on ", arrays[i].device());
    }
}

Dtype joined_dtype(const std::vector<Array>& arrays) {
    Dtype dtype = arrays[0].dtype();
    for (const Array& a : arrays) dtype = result_type(dtype, a.dtype());
    return dtype;
}

// n + a + b, rejecting int64 overflow (a resulting dimension must be countable).
int64_t checked_sum(std::string_view op, int64_t n, int64_t a, int64_t b) {
    int64_t out = 0;
    RENSA_CHECK(!__builtin_add_overflow(n, a, &out) && !__builtin_add_overflow(out, b, &out), ValueError, op,
                ": resulting dimension does not fit in int64");
    return out;
}

// x viewed as (A, n, C) around `axis`: A = prod(shape[:axis]), C = prod(shape[axis+1:]).
Shape around_axis(const Shape& shape, int axis) {
    int64_t before = 1, after = 1;
    for (int d = 0; d < axis; ++d) before *= shape[d];
    for (int d = axis + 1; d < shape.size(); ++d) after *= shape[d];
    return {before, shape[axis], after};
}

// Every slice of `x` along `axis` repeated `times` times in a row when `inner`
// (repeat: a a b b), or the whole extent repeated when not (tile: a b a b).
Array repeat_along(std::string_view op, const Array& x, int axis, int64_t times, bool inner) {
    Shape shape = x.shape();
    RENSA_CHECK(!__builtin_mul_overflow(shape[axis], times, &shape[axis]), ValueError, op, ": repeating axis ", axis,
                " of shape ", x.shape(), " ", times, " times overflows int64");
    if (x.size() == 0 || times == 0) return Array::empty(shape, x.dtype(), x.device());
    const Shape abc = around_axis(x.shape(), axis);
    const Shape expanded = inner ? Shape{abc[0], abc[1], times, abc[2]} : Shape{abc[0], times, abc[1], abc[2]};
    const Shape source = inner ? Shape{abc[0], abc[1], 1, abc[2]} : Shape{abc[0], 1, abc[1], abc[2]};
    const Array out = Array::empty(expanded, x.dtype(), x.device());
    out.assign(x.reshape(source));
    return out.reshape(shape);
}

}  // namespace

Array concatenate(const std::vector<Array>& arrays, int axis) {
    check_joinable("concatenate", arrays);
    const Shape& first = arrays[0].shape();
    RENSA_CHECK(!first.empty(), DimensionError, "concatenate: zero-dimensional arrays cannot be concatenated");
    const int a = normalize_axis(axis, first.size(), "concatenate");
    Shape shape = first;
    shape[a] = 0;
    for (size_t i = 0; i < arrays.size(); ++i) {
        const Shape& s = arrays[i].shape();
        bool fits = s.size() == first.size();
        for (int d = 0; fits && d < s.size(); ++d) fits = d == a || s[d] == first[d];
        RENSA_CHECK(fits, DimensionError, "concatenate: all input arrays must have the same shape except on axis ", a,
                    ", but array 0 has shape ", first, " and array ", i, " has shape ", s);
        shape[a] = checked_sum("concatenate", shape[a], s[a], 0);
    }
    Array out = Array::empty(shape, joined_dtype(arrays), arrays[0].device());
    int64_t start = 0;
    for (const Array& x : arrays) {
        out.index(slice_on(a, start, start + x.shape()[a])).assign(x);
        start += x.shape()[a];
    }
    return out;
}

Array stack(const std::vector<Array>& arrays, int axis) {
    check_joinable("stack", arrays);
    const int a = normalize_axis(axis, arrays[0].ndim() + 1, "stack");
    std::vector<Array> expanded;
    for (size_t i = 0; i < arrays.size(); ++i) {
        RENSA_CHECK(arrays[i].shape() == arrays[0].shape(), DimensionError,
                    "stack: all input arrays must have the same shape, but array 0 has shape ", arrays[0].shape(),
                    " and array ", i, " has shape ", arrays[i].shape());
        expanded.push_back(arrays[i].expand_dims(a));
    }
    return concatenate(expanded, a);
}

std::vector<Array> split(const Array& x, int64_t sections, int axis) {
    const int a = normalize_axis(axis, x.ndim(), "split");
    RENSA_CHECK(sections > 0, ValueError, "split: the number of sections must be positive, got ", sections);
    const int64_t n = x.shape()[a];
    RENSA_CHECK(n % sections == 0, ValueError, "split: array split does not result in an equal division: axis ", a,
                " of length ", n, " into ", sections, " sections");
    std::vector<int64_t> indices;
    for (int64_t i = 1; i < sections; ++i) indices.push_back(i * (n / sections));
    return split(x, indices, a);
}

std::vector<Array> split(const Array& x, const std::vector<int64_t>& indices, int axis) {
    const int a = normalize_axis(axis, x.ndim(), "split");
    // numpy's array_split: piece k is x[bounds[k]:bounds[k+1]] with Python slice rules, so
    // negative indices count from the end and out-of-range or decreasing ones give empty pieces.
    std::vector<Array> pieces;
    std::optional<int64_t> start = 0;
    for (int64_t stop : indices) {
        pieces.push_back(x.index(slice_on(a, start, stop)));
        start = stop;
    }
    pieces.push_back(x.index(slice_on(a, start, std::nullopt)));
    return pieces;
}

Array pad(const Array& x, const std::vector<std::pair<int64_t, int64_t>>& pad_width, Scalar value) {
    const bool broadcast = pad_width.size() == 1;
    RENSA_CHECK(broadcast || pad_width.size() == static_cast<size_t>(x.ndim()), ValueError, "pad: pad_width has ",
                pad_width.size(), " pairs but the array of shape ", x.shape(), " needs 1 or ", x.ndim());
    Shape shape = x.shape();
    std::vector<Index> interior;
    for (int d = 0; d < x.ndim(); ++d) {
        const auto [before, after] = pad_width[broadcast ? 0 : static_cast<size_t>(d)];
        RENSA_CHECK(before >= 0 && after >= 0, ValueError, "pad: widths must be non-negative, got (", before, ", ",
                    after, ") for axis ", d);
        shape[d] = checked_sum("pad", shape[d], before, after);
        interior.push_back(Slice{before, before + x.shape()[d], 1});
    }
    Array out = Array::empty(shape, x.dtype(), x.device());
    out.fill(value);
    out.index(interior).assign(x);
    return out;
}

Array tile(const Array& x, const std::vector<int64_t>& reps) {
    for (int64_t r : reps) RENSA_CHECK(r >= 0, ValueError, "tile: repetitions must be non-negative, got ", r);
    // numpy: the shorter of x.shape and reps is padded with leading ones.
    const int ndim = std::max(x.ndim(), static_cast<int>(reps.size()));
    Shape shape(ndim - x.ndim(), 1);
    for (int64_t n : x.shape()) shape.push_back(n);
    Array out = x.reshape(shape);
    bool copied = false;
    for (int d = 0; d < ndim; ++d) {
        const int from_reps = d - (ndim - static_cast<int>(reps.size()));
        const int64_t r = from_reps >= 0 ? reps[static_cast<size_t>(from_reps)] : 1;
        if (r == 1) continue;
        out = repeat_along("tile", out, d, r, /*inner=*/false);
        copied = true;
    }
    return copied ? out : out.copy();
}

Array repeat(const Array& x, int64_t repeats, std::optional<int> axis) {
    RENSA_CHECK(repeats >= 0, ValueError, "repeat: repeats must be non-negative, got ", repeats);
    const Array src = axis ? x : x.ravel();
    return repeat_along("repeat", src, normalize_axis(axis.value_or(0), src.ndim(), "repeat"), repeats, /*inner=*/true);
}

Array repeat(const Array& x, const std::vector<int64_t>& repeats, std::optional<int> axis) {
    const Array src = axis ? x : x.ravel();
    const int a = normalize_axis(axis.value_or(0), src.ndim(), "repeat");
    if (repeats.size() == 1) return repeat(src, repeats[0], a);
    const int64_t n = src.shape()[a];
    RENSA_CHECK(static_cast<int64_t>(repeats.size()) == n, ValueError, "repeat: ", repeats.size(),
                " repeats do not match axis ", a, " of length ", n, " (shape ", src.shape(), ")");
    std::vector<int64_t> gather;  // every position i, repeats[i] times: then one take
    for (int64_t i = 0; i < n; ++i) {
        const int64_t r = repeats[static_cast<size_t>(i)];
        RENSA_CHECK(r >= 0, ValueError, "repeat: repeats must be non-negative, got ", r, " at position ", i);
        gather.insert(gather.end(), static_cast<size_t>(r), i);
    }
    const auto count = static_cast<int64_t>(gather.size());
    return take(src, Array::from_vector(gather, {count}, src.device()), a);
}

Array flip(const Array& x, const std::optional<Axes>& axes) {
    const Axes flipped = normalize_axes(axes.value_or(all_axes(x.ndim())), x.ndim(), "flip");
    std::vector<Index> idx(static_cast<size_t>(x.ndim()), Slice{});
    for (int d : flipped) idx[static_cast<size_t>(d)] = Slice{std::nullopt, std::nullopt, -1};
    return x.index(idx);
}

}  // namespace rensa::ops
