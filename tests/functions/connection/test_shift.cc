// shift (issue 23) against a per-element reference written after Chainer's CUDA kernel,
// gradients and double backprop (the opposite shift), errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Chainer's shift_gpu: the group of channel c0, the centre swapped to the last group,
// channels past the last full group unmoved.
Array shift_ref(const Array& x, int64_t kh, int64_t kw, int64_t dy, int64_t dx) {
    const std::vector<double> v = to_doubles(x);
    const Shape& s = x.shape();
    const int64_t c = s[1], h = s[2], w = s[3], groups = kh * kw, group_size = c / groups;
    std::vector<double> y(v.size());
    for (int64_t i = 0; i < shape_size(s); ++i) {
        const std::vector<int64_t> at = unravel(i, s);
        int64_t g = at[1] / group_size;
        if (g == (groups - 1) / 2) {
            g = groups - 1;
        } else if (g == groups - 1) {
            g = (groups - 1) / 2;
        }
        const int64_t ky = g >= groups ? 0 : g / kw - kh / 2, kx = g >= groups ? 0 : g % kw - kw / 2;
        const int64_t r = at[2] - ky * dy, col = at[3] - kx * dx;
        y[i] = r >= 0 && r < h && col >= 0 && col < w ? v[ravel({at[0], at[1], r, col}, s)] : 0.0;
    }
    return f64(y, s);
}

}  // namespace

TEST_CASE("shift", "[functions][connection]") {
    struct Case {
        Shape shape;
        int64_t kh, kw, dy, dx;
    };
    // 9 groups of one channel; 11 channels (the remainder stays with the last group); a
    // 1 x 3 window with dilation 2; negative dilation (Chainer's backward).
    for (const Case& c : std::vector<Case>{{{2, 9, 4, 5}, 3, 3, 1, 1},
                                           {{1, 11, 5, 4}, 3, 3, 1, 1},
                                           {{2, 3, 3, 6}, 1, 3, 1, 2},
                                           {{1, 10, 6, 6}, 3, 3, -2, -1}}) {
        check_function({
            .name = "shift",
            .inputs = {{.shape = c.shape}},
            .func =
                [&c](const Vars& xs) {
                    return Vars{F::shift(xs[0], {c.kh, c.kw}, {c.dy, c.dx})};
                },
            .reference = [&c](const Arrays& xs) { return Arrays{shift_ref(xs[0], c.kh, c.kw, c.dy, c.dx)}; },
        });
    }
}

TEST_CASE("shift: the default 3 x 3 window moves group 0 down and right", "[functions][connection]") {
    const Variable x(make_array(iota(9 * 4), {1, 9, 2, 2}, Dtype::kFloat64));
    const Variable y = F::shift(x);
    // Group 0 has offset (-1, -1): y[r, c] = x[r + 1, c + 1]; channel 8 gets the centre (unmoved).
    check_allclose(y.array().index({int64_t{0}, int64_t{0}}), {3, 0, 0, 0}, {2, 2}, {0, 0});
    check_allclose(y.array().index({int64_t{0}, int64_t{8}}), {32, 33, 34, 35}, {2, 2}, {0, 0});
}

TEST_CASE("shift: errors", "[functions][connection]") {
    const Variable x(ops::zeros({1, 9, 3, 3}));
    CHECK_THROWS_WITH(F::shift(x, 2), Catch::Contains("shift: Expect: ksize odd and positive"));
    CHECK_THROWS_AS(F::shift(x, 3, 0), ValueError);
    CHECK_THROWS_WITH(F::shift(Variable(ops::zeros({1, 8, 3, 3}))),
                      Catch::Contains("shift: Expect: x.shape[1] >= kh * kw"));
    CHECK_THROWS_AS(F::shift(Variable(ops::zeros({9, 3, 3}))), DimensionError);
    CHECK_THROWS_AS(F::shift(Variable(ops::zeros({1, 9, 3, 3}, Dtype::kInt32))), DtypeError);
    CHECK_THROWS_AS(F::shift(x, {3, 3, 3}), ValueError);
}
