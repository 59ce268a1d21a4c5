// The forward of pad in every numpy mode, on arrays of any device: numpy.pad's
// algorithms (numpy 1.26, lib/arraypad.py) one axis after the other, each axis padded
// from the array the earlier axes already padded, so corners come out as numpy's. Every
// step is a core op (slices, concatenation, reductions, sort), so no data leaves the device.

#include <algorithm>
#include <set>
#include <string>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/manipulation.h"
#include "core/ops/reduction.h"
#include "core/ops/sort.h"
#include "functions/array/detail.h"

namespace rensa::functions::array_detail {
namespace {

using Widths = std::vector<std::pair<int64_t, int64_t>>;

// x[..., start:stop, ...] with the slice at `axis` (a view).
Array slice_axis(const Array& x, int axis, int64_t start, int64_t stop) {
    std::vector<Index> index(static_cast<size_t>(axis), Slice{});
    index.emplace_back(Slice{start, stop});
    return x.index(index);
}

Shape with_length(const Shape& shape, int axis, int64_t length) {
    Shape s = shape;
    s[axis] = length;
    return s;
}

// The pair for `axis` from a list of one pair or one per axis.
template <typename T>
std::pair<T, T> pair_for(const std::vector<std::pair<T, T>>& pairs, int axis, int ndim, std::string_view name) {
    RENSA_CHECK(pairs.size() == 1 || pairs.size() == static_cast<size_t>(ndim), ValueError, "pad: ", name, " has ",
                pairs.size(), " pairs but x has ", ndim, " axes; expected 1 or ", ndim);
    return pairs.size() == 1 ? pairs[0] : pairs[static_cast<size_t>(axis)];
}

// left, x, right joined along axis, skipping empty sides.
Array join(const Array& left, const Array& x, const Array& right, int axis) {
    std::vector<Array> parts;
    if (left.shape()[axis] > 0) parts.push_back(left);
    parts.push_back(x);
    if (right.shape()[axis] > 0) parts.push_back(right);
    return parts.size() == 1 ? x : ops::concatenate(parts, axis);
}

Array fill_side(const Array& x, int axis, int64_t width, double value) {
    return ops::full(with_length(x.shape(), axis, width), value, x.dtype(), x.device());
}

// A side of length `width` repeating the slice `edge` (length 1 along axis).
Array repeat_side(const Array& edge, int axis, int64_t width) {
    return edge.broadcast_to(with_length(edge.shape(), axis, width));
}

Array pad_edge(const Array& x, int axis, std::pair<int64_t, int64_t> w) {
    const int64_t n = x.shape()[axis];
    return join(repeat_side(slice_axis(x, axis, 0, 1), axis, w.first), x,
                repeat_side(slice_axis(x, axis, n - 1, n), axis, w.second), axis);
}

// numpy's wrap: the periodic extension, taken from enough tiled copies.
Array pad_wrap(const Array& x, int axis, std::pair<int64_t, int64_t> w) {
    const int64_t n = x.shape()[axis], total = w.first + n + w.second;
    const int64_t offset = (n - w.first % n) % n;
    std::vector<int64_t> reps(static_cast<size_t>(x.ndim()), 1);
    reps[static_cast<size_t>(axis)] = (offset + total + n - 1) / n;
    return slice_axis(ops::tile(x, reps), axis, offset, offset + total);
}

// numpy's _set_reflect_both, repeated until both sides are filled: each round mirrors at
// most one period of what is already there ('symmetric' includes the edge, 'reflect' does
// not; 'odd' negates the mirror about the edge value).
Array pad_reflect(Array x, int axis, std::pair<int64_t, int64_t> w, bool include_edge, bool odd) {
    const int64_t period = x.shape()[axis];
    int64_t left = w.first, right = w.second;
    const int64_t edge_offset = include_edge ? 1 : 0;
    while (left > 0 || right > 0) {
        const int64_t length = x.shape()[axis];
        const int64_t chunk_max = include_edge ? length / period * period : (length - 1) / (period - 1) * (period - 1);
        Array left_chunk = slice_axis(x, axis, 0, 0), right_chunk = left_chunk;
        if (left > 0) {
            const int64_t chunk = std::min(chunk_max, left);
            left_chunk = ops::flip(slice_axis(x, axis, 1 - edge_offset, 1 - edge_offset + chunk), Axes{axis});
            if (odd) left_chunk = ops::subtract(ops::multiply(slice_axis(x, axis, 0, 1), 2), left_chunk);
            left -= chunk;
        }
        if (right > 0) {
            const int64_t chunk = std::min(chunk_max, right);
            const int64_t stop = length - 1 + edge_offset;  // exclusive end of the mirrored run
            right_chunk = ops::flip(slice_axis(x, axis, stop - chunk, stop), Axes{axis});
            if (odd)
                right_chunk = ops::subtract(ops::multiply(slice_axis(x, axis, length - 1, length), 2), right_chunk);
            right -= chunk;
        }
        x = join(left_chunk, x, right_chunk, axis);
    }
    return x;
}

// numpy.median along axis of a non-empty x, keeping the axis.
Array median(const Array& x, int axis) {
    const int64_t k = x.shape()[axis];
    const Array sorted = ops::sort(x, axis);
    const Array lo = slice_axis(sorted, axis, (k - 1) / 2, (k - 1) / 2 + 1),
                hi = slice_axis(sorted, axis, k / 2, k / 2 + 1);
    return ops::multiply(ops::add(lo, hi), 0.5).astype(x.dtype(), false);
}

Array statistic(const Array& chunk, int axis, std::string_view mode) {
    if (mode == "maximum") return ops::max(chunk, Axes{axis}, true);
    if (mode == "minimum") return ops::min(chunk, Axes{axis}, true);
    if (mode == "mean") return ops::mean(chunk, Axes{axis}, true).astype(chunk.dtype(), false);
    return median(chunk, axis);
}

// numpy's _get_stats: the statistic of the first / last stat_length values (all by default).
Array pad_stat(const Array& x, int axis, std::pair<int64_t, int64_t> w, std::string_view mode,
               const std::optional<std::vector<std::pair<int64_t, int64_t>>>& stat_length) {
    const int64_t n = x.shape()[axis];
    std::pair<int64_t, int64_t> len{n, n};
    if (stat_length) len = pair_for(*stat_length, axis, x.ndim(), "stat_length");
    RENSA_CHECK(len.first >= 0 && len.second >= 0, ValueError, "pad: Expect: stat_length >= 0, Actual: (", len.first,
                ", ", len.second, ")");
    len = {std::min(len.first, n), std::min(len.second, n)};
    RENSA_CHECK(len.first > 0 && len.second > 0, ValueError,
                "pad: stat_length of 0 yields no value for padding in mode '", mode, "'");
    const Array left = statistic(slice_axis(x, axis, 0, len.first), axis, mode);
    const Array right = statistic(slice_axis(x, axis, n - len.second, n), axis, mode);
    return join(repeat_side(left, axis, w.first), x, repeat_side(right, axis, w.second), axis);
}

// numpy.linspace(end, edge, width, endpoint=False) along axis: end + (edge - end) * j / width.
Array ramp(const Array& edge, double end, int axis, int64_t width, bool reversed) {
    std::vector<double> steps(static_cast<size_t>(width));
    for (int64_t j = 0; j < width; ++j) {
        steps[static_cast<size_t>(j)] = static_cast<double>(reversed ? width - 1 - j : j) / static_cast<double>(width);
    }
    Shape shape(edge.ndim(), 1);
    shape[axis] = width;
    const Array fraction = Array::from_vector(steps, shape, edge.device()).astype(edge.dtype(), false);
    return ops::add(ops::multiply(ops::subtract(edge, end), fraction), end).astype(edge.dtype(), false);
}

Array pad_linear_ramp(const Array& x, int axis, std::pair<int64_t, int64_t> w,
                      const std::optional<std::vector<std::pair<double, double>>>& end_values) {
    const int64_t n = x.shape()[axis];
    const std::pair<double, double> ends =
        end_values ? pair_for(*end_values, axis, x.ndim(), "end_values") : std::pair<double, double>{0.0, 0.0};
    return join(ramp(slice_axis(x, axis, 0, 1), ends.first, axis, w.first, false), x,
                ramp(slice_axis(x, axis, n - 1, n), ends.second, axis, w.second, true), axis);
}

}  // namespace

void check_pad_keywords(std::string_view mode, const PadOptions& options) {
    std::vector<std::string> unused;
    if (options.constant_values && mode != "constant") unused.emplace_back("constant_values");
    if (options.end_values && mode != "linear_ramp") unused.emplace_back("end_values");
    const bool stat = mode == "maximum" || mode == "mean" || mode == "median" || mode == "minimum";
    if (options.stat_length && !stat) unused.emplace_back("stat_length");
    if (options.reflect_type && mode != "reflect" && mode != "symmetric") unused.emplace_back("reflect_type");
    std::string names;
    for (const std::string& name : unused) names += (names.empty() ? "" : ", ") + name;
    RENSA_CHECK(unused.empty(), ValueError, "pad: unsupported keyword arguments for mode '", mode, "': ", names);
    if (options.reflect_type) {
        RENSA_CHECK(*options.reflect_type == "even" || *options.reflect_type == "odd", ValueError,
                    "pad: Expect: reflect_type in ('even', 'odd'), Actual: '", *options.reflect_type, "'");
    }
}

namespace {

Array pad_axis(const Array& x, int axis, std::pair<int64_t, int64_t> w, std::string_view mode,
               const PadOptions& options) {
    if (w.first == 0 && w.second == 0) return x;
    if (mode == "constant" || mode == "empty") {
        const std::pair<double, double> values =
            options.constant_values ? pair_for(*options.constant_values, axis, x.ndim(), "constant_values")
                                    : std::pair<double, double>{0.0, 0.0};
        return join(fill_side(x, axis, w.first, values.first), x, fill_side(x, axis, w.second, values.second), axis);
    }
    RENSA_CHECK(x.shape()[axis] > 0, ValueError, "pad: can't extend empty axis ", axis,
                " using modes other than 'constant' or 'empty'");
    if (mode == "edge") return pad_edge(x, axis, w);
    if (mode == "wrap") return pad_wrap(x, axis, w);
    if (mode == "linear_ramp") return pad_linear_ramp(x, axis, w, options.end_values);
    if (mode == "reflect" || mode == "symmetric") {
        // numpy extends an axis of length 1 with its edge in both modes.
        if (x.shape()[axis] == 1) return pad_edge(x, axis, w);
        return pad_reflect(x, axis, w, mode == "symmetric", options.reflect_type.value_or("even") == "odd");
    }
    return pad_stat(x, axis, w, mode, options.stat_length);
}

}  // namespace

bool is_pad_mode(std::string_view mode) {
    static const std::set<std::string_view> modes{"constant", "edge",    "linear_ramp", "maximum", "mean", "median",
                                                  "minimum",  "reflect", "symmetric",   "wrap",    "empty"};
    return modes.count(mode) > 0;
}

Array pad_array(const Array& x, const Widths& widths, std::string_view mode, const PadOptions& options) {
    check_pad_keywords(mode, options);
    Array y = x;
    for (int axis = 0; axis < x.ndim(); ++axis) y = pad_axis(y, axis, widths[static_cast<size_t>(axis)], mode, options);
    return y.as_contiguous();
}

}  // namespace rensa::functions::array_detail
