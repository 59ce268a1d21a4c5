// deformable_convolution_2d_sampler (issue 23) against naive loops that sample the padded
// input bilinearly (zero outside), gradients, double backprop, the zero-offset case equal to
// convolution_2d, errors.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct Geometry {
    int64_t sy, sx, ph, pw;
};

// x[n, c] padded by (ph, pw) zeros, read bilinearly at (r, q) with zeros outside.
double bilinear(const std::vector<double>& x, const Shape& xs, int64_t n, int64_t c, double r, double q,
                const Geometry& g) {
    const auto at = [&](int64_t i, int64_t j) {
        i -= g.ph, j -= g.pw;
        return i >= 0 && i < xs[2] && j >= 0 && j < xs[3] ? x[ravel({n, c, i, j}, xs)] : 0.0;
    };
    const auto r0 = static_cast<int64_t>(std::floor(r)), q0 = static_cast<int64_t>(std::floor(q));
    const double fr = r - static_cast<double>(r0), fq = q - static_cast<double>(q0);
    return at(r0, q0) * (1 - fr) * (1 - fq) + at(r0, q0 + 1) * (1 - fr) * fq + at(r0 + 1, q0) * fr * (1 - fq) +
           at(r0 + 1, q0 + 1) * fr * fq;
}

Array deformable_ref(const Arrays& in, const Geometry& g) {
    const std::vector<double> x = to_doubles(in[0]), off = to_doubles(in[1]), W = to_doubles(in[2]);
    const std::vector<double> b = in.size() > 3 ? to_doubles(in[3]) : std::vector<double>{};
    const Shape &xs = in[0].shape(), &os = in[1].shape(), &ws = in[2].shape();
    const int64_t taps = ws[2] * ws[3];
    const Shape ys{xs[0], ws[0], os[2], os[3]};
    std::vector<double> y;
    for (int64_t e = 0; e < shape_size(ys); ++e) {
        const std::vector<int64_t> at = unravel(e, ys);
        const int64_t n = at[0], o = at[1], i = at[2], j = at[3];
        double acc = b.empty() ? 0.0 : b[o];
        for (int64_t k = 0; k < taps; ++k) {
            const double q = static_cast<double>(j * g.sx + k % ws[3]) + off[ravel({n, k, i, j}, os)];
            const double r = static_cast<double>(i * g.sy + k / ws[3]) + off[ravel({n, taps + k, i, j}, os)];
            for (int64_t c = 0; c < xs[1]; ++c) {
                acc += W[ravel({o, c, k / ws[3], k % ws[3]}, ws)] * bilinear(x, xs, n, c, r, q, g);
            }
        }
        y.push_back(acc);
    }
    return f64(y, ys);
}

}  // namespace

TEST_CASE("deformable_convolution_2d_sampler", "[functions][connection]") {
    // Offsets stay away from integers: a sample on a pixel boundary has no gradient in the
    // offset. Offsets up to 1.6 reach past the padded border, where x reads as zero.
    const ValueGenerator offsets = away_from({-2, -1, 0, 1, 2}, -1.6, 1.6, 0.06);
    check_function({
        .name = "deformable_convolution_2d_sampler",
        .inputs = {{.shape = {2, 2, 4, 5}},
                   {.shape = {2, 2 * 2 * 3, 4, 4}, .values = offsets},
                   {.shape = {3, 2, 2, 3}},
                   {.shape = {3}}},
        .func =
            [](const Vars& v) {
                return Vars{F::deformable_convolution_2d_sampler(v[0], v[1], v[2], v[3], 1, {1, 0})};
            },
        .reference =
            [](const Arrays& a) {
                return Arrays{deformable_ref(a, {1, 1, 1, 0})};
            },
    });
    check_function({
        .name = "deformable_convolution_2d_sampler (stride, no bias)",
        .inputs = {{.shape = {1, 2, 5, 5}},
                   {.shape = {1, 2 * 2 * 2, 2, 3}, .values = offsets},
                   {.shape = {2, 2, 2, 2}}},
        .func =
            [](const Vars& v) {
                return Vars{F::deformable_convolution_2d_sampler(v[0], v[1], v[2], {}, {2, 1}, 0)};
            },
        .reference =
            [](const Arrays& a) {
                return Arrays{deformable_ref(a, {2, 1, 0, 0})};
            },
    });
}

TEST_CASE("deformable_convolution_2d_sampler: zero offsets give convolution_2d", "[functions][connection]") {
    const Variable x(make_array(iota(2 * 3 * 5 * 6, 0.1), {2, 3, 5, 6}, Dtype::kFloat64));
    const Variable W(make_array(iota(4 * 3 * 3 * 2, -0.05, 1.0), {4, 3, 3, 2}, Dtype::kFloat64));
    const Variable b(make_array({1, 2, 3, 4}, {4}, Dtype::kFloat64));
    const Variable y = F::convolution_2d(x, W, b, {.stride = 2, .pad = 1});
    const Variable offset(ops::zeros({2, 2 * 3 * 2, y.shape()[2], y.shape()[3]}, Dtype::kFloat64));
    check_allclose(F::deformable_convolution_2d_sampler(x, offset, W, b, 2, 1).array(), y.array(), {1e-10, 1e-10});
}

TEST_CASE("deformable_convolution_2d_sampler: errors", "[functions][connection]") {
    const Variable x(ops::zeros({1, 2, 4, 4})), W(ops::zeros({3, 2, 3, 3})), off(ops::zeros({1, 18, 2, 2}));
    CHECK(F::deformable_convolution_2d_sampler(x, off, W).shape() == Shape{1, 3, 2, 2});
    CHECK_THROWS_WITH(F::deformable_convolution_2d_sampler(x, Variable(ops::zeros({1, 9, 2, 2})), W),
                      Catch::Contains("deformable_convolution_2d_sampler: Expect: offset.shape[:2]"));
    CHECK_THROWS_WITH(F::deformable_convolution_2d_sampler(x, off, Variable(ops::zeros({3, 1, 3, 3}))),
                      Catch::Contains("Expect: W.shape[1] == x.shape[1]"));
    CHECK_THROWS_AS(F::deformable_convolution_2d_sampler(x, off, W, Variable(ops::zeros({2}))), DimensionError);
    CHECK_THROWS_AS(F::deformable_convolution_2d_sampler(x, Variable(ops::zeros({1, 18, 2, 2}, Dtype::kFloat64)), W),
                    DtypeError);
    CHECK_THROWS_AS(F::deformable_convolution_2d_sampler(x, off, W, {}, 0), ValueError);
    CHECK_THROWS_AS(F::deformable_convolution_2d_sampler(Variable(ops::zeros({2, 4, 4})), off, W), DimensionError);
    CHECK_THROWS_WITH(
        F::deformable_convolution_2d_sampler(Variable(ops::zeros({1, 2, 1, 4})), Variable(ops::zeros({1, 2, 1, 4})),
                                             Variable(ops::zeros({3, 2, 1, 1}))),
        Catch::Contains("Expect: the padded image at least 2 x 2"));
    CHECK(F::deformable_convolution_2d_sampler(Variable(ops::zeros({1, 2, 1, 4})), Variable(ops::zeros({1, 2, 3, 6})),
                                               Variable(ops::zeros({3, 2, 1, 1})), {}, 1, 1)
              .shape() == Shape{1, 3, 3, 6});
}
