// im2col: Chainer's layout (N, C*kh*kw, out_h, out_w) against a float64 loop, with stride,
// padding, dilation and cover_all; gradients (col2im) and double backprop; errors.

#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct Params {
    int64_t kh, kw, sy, sx, ph, pw, dy, dx;
    bool cover_all;
};

int64_t outsize(int64_t size, int64_t k, int64_t s, int64_t p, int64_t d, bool cover_all) {
    const int64_t dk = k + (k - 1) * (d - 1);
    return cover_all ? (size + 2 * p - dk + s - 1) / s + 1 : (size + 2 * p - dk) / s + 1;
}

Array im2col_ref(const Array& x, const Params& q) {
    const std::vector<double> v = to_doubles(x);
    const int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    const int64_t oh = outsize(h, q.kh, q.sy, q.ph, q.dy, q.cover_all),
                  ow = outsize(w, q.kw, q.sx, q.pw, q.dx, q.cover_all);
    std::vector<double> out;
    for (int64_t b = 0; b < n; ++b) {
        for (int64_t ch = 0; ch < c; ++ch) {
            for (int64_t i = 0; i < q.kh; ++i) {
                for (int64_t j = 0; j < q.kw; ++j) {
                    for (int64_t y = 0; y < oh; ++y) {
                        for (int64_t xx = 0; xx < ow; ++xx) {
                            const int64_t r = y * q.sy - q.ph + i * q.dy, s = xx * q.sx - q.pw + j * q.dx;
                            const bool inside = r >= 0 && r < h && s >= 0 && s < w;
                            out.push_back(inside ? v[static_cast<size_t>(((b * c + ch) * h + r) * w + s)] : 0.0);
                        }
                    }
                }
            }
        }
    }
    return f64(out, {n, c * q.kh * q.kw, oh, ow});
}

}  // namespace

TEST_CASE("im2col", "[functions][array]") {
    const std::vector<std::pair<const char*, Params>> cases{
        {"im2col 3x3", {3, 3, 1, 1, 1, 1, 1, 1, false}},
        {"im2col stride 2 rectangular", {2, 3, 2, 1, 0, 1, 1, 1, false}},
        {"im2col dilated", {2, 2, 1, 2, 1, 0, 2, 1, false}},
        {"im2col cover_all", {3, 2, 2, 3, 0, 1, 1, 1, true}},
    };
    for (const auto& [name, q] : cases) {
        check_function({
            .name = name,
            .inputs = {{.shape = {2, 2, 5, 6}}},
            .func =
                [q](const Vars& xs) {
                    return Vars{F::im2col(xs[0], {q.kh, q.kw}, {q.sy, q.sx}, {q.ph, q.pw}, q.cover_all, {q.dy, q.dx})};
                },
            .reference = [q](const Arrays& xs) { return Arrays{im2col_ref(xs[0], q)}; },
        });
    }
}

TEST_CASE("im2col errors", "[functions][array]") {
    const Variable x(ops::zeros({1, 1, 3, 3}));
    CHECK_THROWS_WITH(F::im2col(Variable(ops::zeros({1, 3, 3})), {2, 2}),
                      Catch::Contains("im2col: Expect: x.ndim == 4"));
    CHECK_THROWS_AS(F::im2col(Variable(ops::zeros({1, 1, 3, 3}, Dtype::kInt32)), {2, 2}), DtypeError);
    CHECK_THROWS_WITH(F::im2col(x, {0, 2}), Catch::Contains("im2col: Expect: ksize >= 1"));
    CHECK_THROWS_AS(F::im2col(x, {2, 2}, {1, 0}), ValueError);
    CHECK_THROWS_AS(F::im2col(x, {5, 5}), ValueError);
}
