#pragma once
// Helpers for rensa's tests: arrays from values, layouts that are non-contiguous on
// purpose, per-dtype tolerances and comparison against float64 references.

#include <cmath>
#include <string>
#include <vector>

#include "core/array.h"

namespace rensa::testing {

// The layouts every routine is tested with.
enum class Layout { kContiguous, kStrided, kTransposed, kOffset };
inline constexpr Layout kAllLayouts[] = {Layout::kContiguous, Layout::kStrided, Layout::kTransposed, Layout::kOffset};
std::string layout_name(Layout layout);

// An array of `dtype` holding `values` (row-major) with the given layout: kStrided
// takes every other element of a larger buffer, kTransposed is the transpose view of
// a contiguous transposed copy, kOffset starts one element into its storage.
Array make_array(const std::vector<double>& values, const Shape& shape, Dtype dtype,
                 Layout layout = Layout::kContiguous);
// The same values in another layout (a copy).
Array with_layout(const Array& a, Layout layout);
// Values 0, 1, 2, ... scaled by `scale` and shifted by `shift`.
std::vector<double> iota(int64_t n, double scale = 1.0, double shift = 0.0);

// Elements as float64 in row-major order (any dtype, any layout).
std::vector<double> to_doubles(const Array& a);

// Distinct small values every dtype holds exactly (negatives where the dtype has them).
std::vector<double> sample(Dtype dtype, int64_t n, int64_t seed = 0);

// Row-major multi-index of flat position `flat` in `shape`, and back.
std::vector<int64_t> unravel(int64_t flat, const Shape& shape);
int64_t ravel(const std::vector<int64_t>& index, const Shape& shape);
// For every element of `shape` (row-major), the flat index of its position along the axes
// not in `axes` (its channel when statistics reduce over `axes`); `channels` gets their count.
std::vector<int64_t> channel_ids(const Shape& shape, const Axes& axes, int64_t* channels = nullptr);

// out[i] = x[source(i)] for every element of `shape`, where source maps an output
// multi-index to an input one (row-major in `x_shape`): references for gathers and views.
template <class Fn>
std::vector<double> gather_reference(const std::vector<double>& x, const Shape& x_shape, const Shape& shape,
                                     Fn&& source) {
    std::vector<double> out;
    for (int64_t i = 0; i < shape_size(shape); ++i) {
        out.push_back(x[static_cast<size_t>(ravel(source(unravel(i, shape)), x_shape))]);
    }
    return out;
}

struct Tolerance {
    double atol, rtol;
};
// Tolerances for results computed in `dtype` (float16/bfloat16 loose, float64 tight).
Tolerance tolerance(Dtype dtype);

// Catch2 check: same shape and |actual - expected| <= atol + rtol * |expected|, NaN
// matching NaN; the message names the first mismatching index.
void check_allclose(const Array& actual, const std::vector<double>& expected, const Shape& shape, Tolerance tol);
void check_allclose(const Array& actual, const Array& expected, Tolerance tol);
void check_allclose(const Array& actual, const Array& expected);  // tolerance of actual's dtype

}  // namespace rensa::testing
