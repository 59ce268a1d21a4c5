// deformable_convolution_2d_sampler (Chainer's chainer.functions, issue 23): convolution at
// sampling positions moved by a learnt offset. As Chainer, the offsets are turned into a
// spatial transformer grid over the padded input, x is sampled bilinearly there
// (spatial_transformer_sampler: zero outside, Note [Bilinear sampling by gathers]) and the
// samples are multiplied by the filters. Every step is a differentiable function, so it runs
// on every device and every order of derivative is autograd's.

#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/connection.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

constexpr const char* kOp = "deformable_convolution_2d_sampler";

void check_deformable(const Variable& x, const Variable& offset, const Variable& W, const Variable& b, const Shape& p) {
    expect_float(x, kOp, "x");
    expect_same_dtype(x, offset, kOp, "x", "offset");
    expect_same_dtype(x, W, kOp, "x", "W");
    expect_ndim(x, 4, kOp, "x");
    expect_ndim(offset, 4, kOp, "offset");
    expect_ndim(W, 4, kOp, "W");
    const Shape& ws = W.shape();
    RENSA_CHECK(ws[1] == x.shape()[1], DimensionError, kOp, ": Expect: W.shape[1] == x.shape[1], Actual: W.shape ", ws,
                ", x.shape ", x.shape());
    RENSA_CHECK(offset.shape()[0] == x.shape()[0] && offset.shape()[1] == 2 * ws[2] * ws[3], DimensionError, kOp,
                ": Expect: offset.shape[:2] == (x.shape[0], 2 * kh * kw), Actual: offset.shape ", offset.shape(),
                ", x.shape ", x.shape(), ", W.shape ", ws);
    RENSA_CHECK(x.shape()[2] + 2 * p[0] >= 2 && x.shape()[3] + 2 * p[1] >= 2, DimensionError, kOp,
                ": Expect: the padded image at least 2 x 2 (its [-1, 1] grid divides by size - 1), Actual: x.shape ",
                x.shape(), ", pad ", p);
    if (!b.defined()) return;
    expect_same_dtype(x, b, kOp, "x", "b");
    expect_shape(b, {ws[0]}, kOp, "b");
}

// The tap position of every (window tap, output position) before the offset: (kh * kw, oh,
// ow) with o * stride + k along `axis` (0 vertical, 1 horizontal), as Chainer's _offset2grid.
Variable tap_positions(const Shape& ws, int64_t oh, int64_t ow, int64_t stride, int axis, const Variable& like) {
    const int64_t kh = ws[2], kw = ws[3];
    std::vector<double> v;
    v.reserve(static_cast<size_t>(kh * kw * oh * ow));
    for (int64_t k = 0; k < kh * kw; ++k) {
        for (int64_t i = 0; i < oh; ++i) {
            for (int64_t j = 0; j < ow; ++j) {
                v.push_back(static_cast<double>(axis == 0 ? i * stride + k / kw : j * stride + k % kw));
            }
        }
    }
    return Variable(Array::from_vector(v, {1, kh * kw, oh, ow}, like.device()).astype(like.dtype()), false);
}

// The convolution on checked inputs of one float dtype.
Variable deformable(const Variable& x, const Variable& offset, const Variable& W, const Variable& b, const Shape& s,
                    const Shape& p) {
    const Shape& ws = W.shape();
    const int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    const int64_t taps = ws[2] * ws[3], oh = offset.shape()[2], ow = offset.shape()[3], co = ws[0];
    // Tap positions in the padded image, mapped to the sampler's [-1, 1] (the centres of
    // its first and last pixels).
    const Variable xs = get_item(offset, {Slice{}, Slice{0, taps}}) + tap_positions(ws, oh, ow, s[1], 1, offset);
    const Variable ys = get_item(offset, {Slice{}, Slice{taps, 2 * taps}}) + tap_positions(ws, oh, ow, s[0], 0, offset);
    const Variable gx = (xs / static_cast<double>(w + 2 * p[1] - 1) - 0.5) * 2.0;
    const Variable gy = (ys / static_cast<double>(h + 2 * p[0] - 1) - 0.5) * 2.0;
    const Variable grid = reshape(concat({gx, gy}, 1), {n, 2, taps, oh * ow});
    const Variable padded = functions::pad(x, {{0, 0}, {0, 0}, {p[0], p[0]}, {p[1], p[1]}});
    const Variable sampled = spatial_transformer_sampler(padded, grid);  // (n, c, taps, oh * ow)
    const Variable cols = reshape(transpose(sampled, {0, 3, 1, 2}), {n * oh * ow, c * taps});
    const Variable filters = reshape(transpose(W, {1, 2, 3, 0}), {c * taps, co});
    const Variable y = transpose(reshape(matmul(cols, filters), {n, oh, ow, co}), {0, 3, 1, 2});
    return b.defined() ? y + reshape(b, {1, co, 1, 1}) : y;
}

}  // namespace

Variable deformable_convolution_2d_sampler(const Variable& x, const Variable& offset, const Variable& W,
                                           const Variable& b, IntOrTuple stride, IntOrTuple pad) {
    const Shape s = stride.expand(2, kOp, "stride"), p = pad.expand(2, kOp, "pad");
    RENSA_CHECK(s[0] > 0 && s[1] > 0 && p[0] >= 0 && p[1] >= 0, ValueError, kOp,
                ": Expect: stride > 0 and pad >= 0, Actual: stride ", s, ", pad ", p);
    check_deformable(x, offset, W, b, p);
    if (x.dtype() != Dtype::kFloat16 && x.dtype() != Dtype::kBFloat16) return deformable(x, offset, W, b, s, p);
    // Half precision cannot hold the tap positions and their [-1, 1] scaling (Chainer builds
    // them in float32 too): the whole convolution runs in float32 (cast is differentiable).
    const auto f32 = [](const Variable& v) { return v.defined() ? cast(v, Dtype::kFloat32) : v; };
    return cast(deformable(f32(x), f32(offset), f32(W), f32(b), s, p), x.dtype());
}

}  // namespace rensa::functions
