// shift (Chainer's chainer.functions.shift, issue 23): every channel group is translated by
// one offset of a ksize window, zeros filling in. Composed of pad, basic slices and concat,
// so it runs on every device and its gradients (the opposite shift) are autograd's.

#include <cstdlib>
#include <vector>

#include "autograd/check.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/connection.h"

namespace rensa::functions {
namespace {

struct ShiftGeometry {
    int64_t kh, kw, dy, dx;
};

ShiftGeometry shift_geometry(const Variable& x, const IntOrTuple& ksize, const IntOrTuple& dilate) {
    const Shape k = ksize.expand(2, "shift", "ksize"), d = dilate.expand(2, "shift", "dilate");
    RENSA_CHECK(k[0] > 0 && k[0] % 2 == 1 && k[1] > 0 && k[1] % 2 == 1, ValueError,
                "shift: Expect: ksize odd and positive, Actual: ", k);
    RENSA_CHECK(d[0] != 0 && d[1] != 0, ValueError, "shift: Expect: dilate != 0, Actual: ", d);
    expect_float(x, "shift", "x");
    expect_ndim(x, 4, "shift", "x");
    RENSA_CHECK(x.shape()[1] >= k[0] * k[1], DimensionError, "shift: Expect: x.shape[1] >= kh * kw, Actual: x.shape ",
                x.shape(), ", ksize ", k);
    return {k[0], k[1], d[0], d[1]};
}

}  // namespace

// Group i of c / (kh * kw) channels (the last one takes the remainder) is moved by window
// offset (ky, kx) = divmod(g, kw) - (kh / 2, kw / 2) times dilate, g = i except that the
// centre (no move) is swapped to the last group, as Chainer: y[.., r, c] = x[.., r - ky dy,
// c - kx dx].
Variable shift(const Variable& x, IntOrTuple ksize, IntOrTuple dilate) {
    const ShiftGeometry g = shift_geometry(x, ksize, dilate);
    const int64_t c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    const int64_t py = g.kh / 2 * std::abs(g.dy), px = g.kw / 2 * std::abs(g.dx);
    const Variable padded = pad(x, {{0, 0}, {0, 0}, {py, py}, {px, px}});
    const int64_t groups = g.kh * g.kw, group_size = c / groups, centre = (groups - 1) / 2;
    std::vector<Variable> parts;
    for (int64_t i = 0; i < groups; ++i) {
        const int64_t idx = i == centre ? groups - 1 : i == groups - 1 ? centre : i;
        const int64_t ky = idx / g.kw - g.kh / 2, kx = idx % g.kw - g.kw / 2;
        const int64_t hs = py - ky * g.dy, ws = px - kx * g.dx;
        const int64_t ce = i < groups - 1 ? (i + 1) * group_size : c;
        parts.push_back(get_item(padded, {Slice{}, Slice{i * group_size, ce}, Slice{hs, hs + h}, Slice{ws, ws + w}}));
    }
    return concat(parts, 1);
}

}  // namespace rensa::functions
