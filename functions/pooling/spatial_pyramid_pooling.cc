// spatial_pyramid_pooling_2d: one max (or average) pooling per pyramid level, flattened and
// concatenated, as Chainer's.

#include <cmath>
#include <string_view>
#include <vector>

#include "autograd/check.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/pooling.h"
#include "functions/pooling/detail.h"

namespace rensa::functions {
namespace {

constexpr const char* kOp = "spatial_pyramid_pooling_2d";

// Note [Pyramid windows in the padding]: where x is small for its pyramid (h = 5 at level 2:
// ksize 2, pad 1, and cover_all adds a fourth window), some windows hold padding only. Chainer
// pools them all the same: -inf for max (its numpy path pads with -inf) and 0 for average;
// so does this function, and their gradient is 0.

// Level `level`'s pooling of x (n, c, h, w), reshaped to (n, c * h_l * w_l, 1, 1).
Variable pool_level(const Variable& x, int64_t level, PyramidPooling pooling) {
    const int64_t bins = int64_t{1} << level;
    Shape ksize, pad;
    for (int d = 2; d < 4; ++d) {
        const int64_t size = x.shape()[d];
        const int64_t k = (size + bins - 1) / bins;  // ceil(size / bins)
        ksize.push_back(k);
        pad.push_back((k * bins - size) / 2);
    }
    const bool is_max = pooling == PyramidPooling::kMax;
    // Validates the level's windows under this function's name before pooling.
    (void)detail::pool_params(x, 2, ksize, {}, pad, is_max, kOp);
    Variable y;
    switch (pooling) {
        case PyramidPooling::kMax:
            y = max_pooling_2d(x, ksize, {.pad = pad, .cover_all = true});
            break;
        case PyramidPooling::kAverage:
            y = average_pooling_2d(x, ksize, {.pad = pad});
            break;
    }
    const Shape& s = y.shape();
    return reshape(y, {s[0], s[1] * s[2] * s[3], 1, 1});
}

}  // namespace

Variable spatial_pyramid_pooling_2d(const Variable& x, int64_t pyramid_height, PyramidPooling pooling) {
    expect_float(x, kOp, "x");
    expect_ndim(x, 4, kOp, "x");
    // 2^62 bins would overflow the window arithmetic long before; no input has that many pixels.
    RENSA_CHECK(pyramid_height >= 1 && pyramid_height < 62, ValueError, kOp,
                ": Expect: 1 <= pyramid_height < 62, Actual: ", pyramid_height);
    std::vector<Variable> ys;
    for (int64_t level = 0; level < pyramid_height; ++level) ys.push_back(pool_level(x, level, pooling));
    return concat(ys, 1);
}

Variable spatial_pyramid_pooling_2d(const Variable& x, int64_t pyramid_height, std::string_view pooling) {
    if (pooling == "max") return spatial_pyramid_pooling_2d(x, pyramid_height, PyramidPooling::kMax);
    if (pooling == "average") return spatial_pyramid_pooling_2d(x, pyramid_height, PyramidPooling::kAverage);
    RENSA_THROW(ValueError, kOp, ": Expect: pooling in ('max', 'average'), Actual: '", pooling, "'");
}

}  // namespace rensa::functions
