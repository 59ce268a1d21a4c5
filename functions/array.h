#pragma once
// Chainer's array functions (F::concat, F::get_item, F::transpose_sequence, ...): shape
// manipulation, joining and splitting, indexing and padding. Every one is linear in its
// differentiable inputs, and its backward is built from these functions again, so they
// support double backprop. Unlike most families they accept any dtype (as Chainer does),
// except resize_images (floating point only); gradients flow only to float inputs.

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "autograd/shape_ops.h"
#include "autograd/variable.h"
#include "core/array.h"

namespace rensa::functions {

// --- Shapes (views in forward).
// reshape(x, shape) (one -1 inferred), broadcast_to(x, shape) and sum_to(x, shape) are
// autograd's (autograd/shape_ops.h); the latter two return x itself when the shape matches.
using rensa::broadcast_to;
using rensa::reshape;
using rensa::sum_to;
// Permutes the axes (reverses them without `axes`); DimensionError for a bad permutation.
[[nodiscard]] Variable transpose(const Variable& x);
[[nodiscard]] Variable transpose(const Variable& x, const Axes& axes);
// Interchanges two axes.
[[nodiscard]] Variable swapaxes(const Variable& x, int axis1, int axis2);
// Inserts an axis of length 1 at `axis` in [-x.ndim - 1, x.ndim].
[[nodiscard]] Variable expand_dims(const Variable& x, int axis);
// Removes the given axes of length 1 (every such axis without `axis`); DimensionError when
// a given axis does not have length 1.
[[nodiscard]] Variable squeeze(const Variable& x);
[[nodiscard]] Variable squeeze(const Variable& x, const Axes& axis);
[[nodiscard]] Variable squeeze(const Variable& x, int axis);
// x reshaped to (x.size,).
[[nodiscard]] Variable flatten(const Variable& x);
// Every input broadcast to their common shape (Chainer's F.broadcast(*xs)).
[[nodiscard]] std::vector<Variable> broadcast(const std::vector<Variable>& xs);

// --- Joining and splitting.
// Joins along an existing axis; same dtype and same shape except on `axis`.
[[nodiscard]] Variable concat(const std::vector<Variable>& xs, int axis = 1);
// Joins along a new axis `axis`; same dtype and shape.
[[nodiscard]] Variable stack(const std::vector<Variable>& xs, int axis = 0);
// numpy.hstack / numpy.vstack (0-d and 1-d inputs as numpy treats them).
[[nodiscard]] Variable hstack(const std::vector<Variable>& xs);
[[nodiscard]] Variable vstack(const std::vector<Variable>& xs);
// Splits into `sections` equal pieces along `axis` (ValueError when not divisible), or at
// the sorted `indices` in [0, x.shape[axis]]. The pieces are views of x. Always a list
// (Chainer's force_tuple=True). Sections take a template so that a braced {3} means indices.
[[nodiscard]] std::vector<Variable> split_axis(const Variable& x, const std::vector<int64_t>& indices, int axis);
[[nodiscard]] std::vector<Variable> split_axis_sections(const Variable& x, int64_t sections, int axis);
template <std::integral T>
[[nodiscard]] std::vector<Variable> split_axis(const Variable& x, T sections, int axis) {
    return split_axis_sections(x, static_cast<int64_t>(sections), axis);
}
// The x.shape[axis] slices of x along `axis`, each without that axis.
[[nodiscard]] std::vector<Variable> separate(const Variable& x, int axis = 0);

// --- Indexing.
// One term of get_item's index: core's basic terms (integer, Slice with any step, NewAxis,
// Ellipsis), an integer Array or a bool Array (a mask), any number of arrays (numpy's
// advanced indexing; device index arrays wrap, Note [Device index wrap]).
using ItemIndex = std::variant<int64_t, Slice, NewAxis, Ellipsis, Array>;
// numpy's x[slices]: F::get_item(x, {0, Slice{1, std::nullopt, 2}, NewAxis{}}). Basic terms
// give views; an integer array gathers (its dimensions go where numpy puts them).
// IndexError names an out-of-range index, its position and the axis.
[[nodiscard]] Variable get_item(const Variable& x, const std::vector<ItemIndex>& slices);
[[nodiscard]] Variable get_item(const Variable& x, int64_t index);
[[nodiscard]] Variable get_item(const Variable& x, const Array& indices);
// y[i] = x[i, t[i]] for x of shape (B, N) and integer t of shape (B,); IndexError names a
// label outside [-N, N) and its position.
[[nodiscard]] Variable select_item(const Variable& x, const Variable& t);
// condition ? x : y elementwise with broadcasting; condition is bool (never differentiated),
// x and y share a dtype.
[[nodiscard]] Variable where(const Variable& condition, const Variable& x, const Variable& y);
[[nodiscard]] Variable where(const Array& condition, const Variable& x, const Variable& y);
// Reverses the order of the elements along `axis` (a view).
[[nodiscard]] Variable flip(const Variable& x, int axis);
// --- Issue 23: views, scatter and patches.
// numpy's x.diagonal(offset, axis1, axis2), a view: the other axes in order, then the
// diagonal. DimensionError for x.ndim < 2 or a bad axis, ValueError for axis1 == axis2.
[[nodiscard]] Variable diagonal(const Variable& x, int64_t offset = 0, int axis1 = 0, int axis2 = 1);
// Chainer's as_strided: a view of x's memory with `shape`, `strides` and `storage_offset`
// in elements (x's own offset without one); ValueError when it reads outside the memory.
// The gradient sums gy over the view elements that read each position, divided among the
// elements of x at that position (Chainer's AsStridedGrad).
[[nodiscard]] Variable as_strided(const Variable& x, const Shape& shape, const std::vector<int64_t>& strides,
                                  std::optional<int64_t> storage_offset = std::nullopt);
// Chainer's scatter_add: a copy of a with b added at a[slices] (numpy.add.at: repeated
// indices add up); slices as get_item's, b of exactly a[slices]'s shape and a's dtype
// (ValueError / DtypeError). Gradients: gy to a, gy[slices] to b.
[[nodiscard]] Variable scatter_add(const Variable& a, const std::vector<ItemIndex>& slices, const Variable& b);
// Chainer's im2col: the (kh, kw) patches of x (N, C, H, W) at the given stride, zero padding
// and dilation, as (N, C*kh*kw, out_h, out_w) ordered (c, i, j); out sizes as convolution's
// (cover_all adds a last partial window). Floating point only.
[[nodiscard]] Variable im2col(const Variable& x, std::pair<int64_t, int64_t> ksize,
                              std::pair<int64_t, int64_t> stride = {1, 1}, std::pair<int64_t, int64_t> pad = {0, 0},
                              bool cover_all = false, std::pair<int64_t, int64_t> dilate = {1, 1});

// --- Sequences (lists of variable-length arrays of shape (L_i, ...)).
// (len(xs), length or max L_i, ...) with xs[i] in [i, :L_i] and `padding` elsewhere;
// ValueError when `length` is shorter than a sequence.
[[nodiscard]] Variable pad_sequence(const std::vector<Variable>& xs, std::optional<int64_t> length = std::nullopt,
                                    Scalar padding = 0);
// xs sorted by decreasing length -> max L_i time steps, step t stacking xs[i][t] of every
// sequence longer than t (shape (B_t, ...)). Its own inverse. ValueError when unsorted.
[[nodiscard]] std::vector<Variable> transpose_sequence(const std::vector<Variable>& xs);

// --- Copies and conversions.
// x as `dtype` (x itself when it already has it); the gradient is cast back.
[[nodiscard]] Variable cast(const Variable& x, Dtype dtype);
// A copy of x on device `dst`; the gradient is copied back to x's device.
[[nodiscard]] Variable copy(const Variable& x, Device dst);
// numpy.pad's keyword arguments, which Chainer's pad passes through. A pair list holds one
// (before, after) pair per axis or one for every axis; an unset field takes numpy's default,
// and a field the mode does not use is a ValueError, as in numpy.
struct PadOptions {
    std::optional<std::vector<std::pair<double, double>>> constant_values{};  // 'constant'; default 0
    std::optional<std::vector<std::pair<double, double>>> end_values{};       // 'linear_ramp'; default 0
    // 'maximum', 'mean', 'median', 'minimum': how many values of each edge the statistic
    // sees; default the whole axis.
    std::optional<std::vector<std::pair<int64_t, int64_t>>> stat_length{};
    std::optional<std::string> reflect_type{};  // 'reflect', 'symmetric': "even" (default) or "odd"
};
// numpy.pad in every mode numpy has ('constant', 'edge', 'linear_ramp', 'maximum', 'mean',
// 'median', 'minimum', 'reflect', 'symmetric', 'wrap', 'empty'); pad_width[i] = (before,
// after) for axis i, one pair (or one integer) for every axis. As in Chainer, the gradient
// is the interior slice of gy whatever the mode (Note [Pad gradient]). ValueError for an
// unknown mode, a keyword the mode does not take, or negative widths.
[[nodiscard]] Variable pad(const Variable& x, const std::vector<std::pair<int64_t, int64_t>>& pad_width,
                           std::string_view mode, const PadOptions& options);
// The same with one scalar constant_values.
[[nodiscard]] Variable pad(const Variable& x, const std::vector<std::pair<int64_t, int64_t>>& pad_width,
                           std::string_view mode = "constant", Scalar constant_values = 0);
[[nodiscard]] Variable pad(const Variable& x, int64_t pad_width, std::string_view mode = "constant",
                           Scalar constant_values = 0);
// numpy.tile: reps[i] copies along axis i (shorter of x.ndim and reps padded with leading 1s).
[[nodiscard]] Variable tile(const Variable& x, const std::vector<int64_t>& reps);
[[nodiscard]] Variable tile(const Variable& x, int64_t reps);
// numpy.repeat: every element `repeats` times (or repeats[i] times) along `axis`, over the
// flattened x without one.
[[nodiscard]] Variable repeat(const Variable& x, const std::vector<int64_t>& repeats,
                              std::optional<int> axis = std::nullopt);
[[nodiscard]] Variable repeat(const Variable& x, int64_t repeats, std::optional<int> axis = std::nullopt);
// Options of resize_images (Chainer's keyword arguments).
struct ResizeImagesOptions {
    std::string_view mode = "bilinear";  // or "nearest"
    bool align_corners = true;           // bilinear: corner pixels map onto corner pixels
};
// Resizes x (N, C, H, W) to (N, C, out_H, out_W) by bilinear (default) or nearest-neighbour
// interpolation, as Chainer computes the source positions. Floating point only.
[[nodiscard]] Variable resize_images(const Variable& x, std::pair<int64_t, int64_t> output_shape,
                                     const ResizeImagesOptions& options = {});

// --- Chainer's spatial transformer (issue 23).
// The sampling grid (B, 2, H, W) of the affine maps theta (B, 2, 3): grid[b, :, i, j] =
// theta[b] (x_j, y_i, 1), x_j and y_i numpy.linspace(-1, 1, W / H). theta is floating with
// shape (B, 2, 3) (DtypeError / DimensionError); output_shape (H, W) positive (ValueError).
// Differentiable any number of times.
[[nodiscard]] Variable spatial_transformer_grid(const Variable& theta, std::pair<int64_t, int64_t> output_shape);
// Bilinear sampling of x (B, C, H, W) at grid (B, 2, out_h, out_w) (grid[:, 0] horizontal,
// grid[:, 1] vertical, -1 and 1 the centres of the first and last pixels): y (B, C, out_h,
// out_w), zero outside the image, as Chainer (Note [Bilinear sampling by gathers]). grid has
// x's float dtype (DtypeError) and batch (DimensionError). Differentiable any number of
// times where no sample lies on a pixel boundary.
[[nodiscard]] Variable spatial_transformer_sampler(const Variable& x, const Variable& grid);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
