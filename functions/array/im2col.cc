// im2col: Chainer's patch extraction (N, C, H, W) -> (N, C*kh*kw, out_h, out_w), composed of
// padding and kh*kw strided slices, so that every device runs it and the gradient (Chainer's
// col2im) and its gradient come from autograd.

#include <utility>
#include <vector>

#include "autograd/check.h"
#include "core/error.h"
#include "core/ops/convolution.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

void check_positive(std::pair<int64_t, int64_t> v, const char* name, int64_t minimum) {
    RENSA_CHECK(v.first >= minimum && v.second >= minimum, ValueError, "im2col: Expect: ", name, " >= ", minimum,
                ", Actual: (", v.first, ", ", v.second, ")");
}

}  // namespace

Variable im2col(const Variable& x, std::pair<int64_t, int64_t> ksize, std::pair<int64_t, int64_t> stride,
                std::pair<int64_t, int64_t> pad, bool cover_all, std::pair<int64_t, int64_t> dilate) {
    expect_float(x, "im2col", "x");
    expect_ndim(x, 4, "im2col", "x");
    check_positive(ksize, "ksize", 1);
    check_positive(stride, "stride", 1);
    check_positive(pad, "pad", 0);
    check_positive(dilate, "dilate", 1);
    const auto [kh, kw] = ksize;
    const auto [sy, sx] = stride;
    const auto [dy, dx] = dilate;
    const int64_t out_h = ops::conv_outsize(x.shape()[2], kh, sy, pad.first, cover_all, dy);
    const int64_t out_w = ops::conv_outsize(x.shape()[3], kw, sx, pad.second, cover_all, dx);
    RENSA_CHECK(out_h > 0 && out_w > 0, ValueError, "im2col: Expect: a positive output size, Actual: (", out_h, ", ",
                out_w, ") for x.shape ", x.shape(), ", ksize (", kh, ", ", kw, ")");
    // Chainer's im2col_cpu pads stride - 1 more at the bottom and right (room for cover_all).
    const Variable padded =
        F::pad(x, {{0, 0}, {0, 0}, {pad.first, pad.first + sy - 1}, {pad.second, pad.second + sx - 1}});
    std::vector<Variable> patches;
    patches.reserve(static_cast<size_t>(kh * kw));
    for (int64_t i = 0; i < kh; ++i) {
        for (int64_t j = 0; j < kw; ++j) {
            const Slice rows{i * dy, i * dy + sy * (out_h - 1) + 1, sy},
                cols{j * dx, j * dx + sx * (out_w - 1) + 1, sx};
            patches.push_back(array_detail::basic_index(padded, {Slice{}, Slice{}, rows, cols}));
        }
    }
    const int64_t n = x.shape()[0], c = x.shape()[1];
    return reshape(stack(patches, 2), {n, c * kh * kw, out_h, out_w});
}

}  // namespace rensa::functions
