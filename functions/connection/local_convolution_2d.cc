// local_convolution_2d (Chainer's chainer.functions.local_convolution_2d, issue 23): a
// convolution whose filters differ at every output position. Composed of strided slices
// (the patches), one batched matmul over the output positions and a broadcast bias, so it
// runs on every device and is differentiable any number of times (Chainer's backward is
// differentiable too, through its cast).

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

void check_local_convolution(const Variable& x, const Variable& W, const Variable& b, const Shape& stride) {
    constexpr const char* op = "local_convolution_2d";
    expect_float(x, op, "x");
    expect_same_dtype(x, W, op, "x", "W");
    expect_ndim(x, 4, op, "x");
    expect_ndim(W, 6, op, "W");
    RENSA_CHECK(x.shape()[1] == W.shape()[3], DimensionError, op,
                ": Expect: x.shape[1] == W.shape[3], Actual: x.shape ", x.shape(), ", W.shape ", W.shape());
    RENSA_CHECK(stride[0] > 0 && stride[1] > 0, ValueError, op, ": Expect: stride > 0, Actual: ", stride);
    for (int i = 0; i < 2; ++i) {
        // Output position o reads rows o * s .. o * s + k - 1, which must lie inside x.
        RENSA_CHECK(W.shape()[1 + i] >= 1 && (W.shape()[1 + i] - 1) * stride[i] + W.shape()[4 + i] <= x.shape()[2 + i],
                    DimensionError, op, ": Expect: (W.shape[", 1 + i, "] - 1) * stride + W.shape[", 4 + i,
                    "] <= x.shape[", 2 + i, "] (the output positions' windows inside x), Actual: x.shape ", x.shape(),
                    ", W.shape ", W.shape(), ", stride ", stride);
    }
    if (!b.defined()) return;
    expect_same_dtype(x, b, op, "x", "b");
    expect_shape(b, {W.shape()[0], W.shape()[1], W.shape()[2]}, op, "b");
}

// (oh * ow, n, c * kh * kw): the patch of every output position, channels then window.
Variable patches(const Variable& x, int64_t oh, int64_t ow, int64_t kh, int64_t kw, const Shape& s) {
    const int64_t n = x.shape()[0], c = x.shape()[1];
    std::vector<Variable> taps;
    for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx) {
            taps.push_back(get_item(x, {Slice{}, Slice{}, Slice{ky, ky + (oh - 1) * s[0] + 1, s[0]},
                                        Slice{kx, kx + (ow - 1) * s[1] + 1, s[1]}}));  // (n, c, oh, ow)
        }
    }
    const Variable p = reshape(stack(taps, 4), {n, c, oh, ow, kh, kw});
    return reshape(transpose(p, {2, 3, 0, 1, 4, 5}), {oh * ow, n, c * kh * kw});
}

}  // namespace

Variable local_convolution_2d(const Variable& x, const Variable& W, const Variable& b, IntOrTuple stride) {
    const Shape s = stride.expand(2, "local_convolution_2d", "stride");
    check_local_convolution(x, W, b, s);
    const Shape& ws = W.shape();
    const int64_t co = ws[0], oh = ws[1], ow = ws[2], k = ws[3] * ws[4] * ws[5], n = x.shape()[0];
    const Variable filters = reshape(transpose(W, {1, 2, 3, 4, 5, 0}), {oh * ow, k, co});
    const Variable y = matmul(patches(x, oh, ow, ws[4], ws[5], s), filters);  // (oh * ow, n, co)
    const Variable out = transpose(reshape(y, {oh, ow, n, co}), {2, 3, 0, 1});
    return b.defined() ? out + reshape(b, {1, co, oh, ow}) : out;
}

}  // namespace rensa::functions
