// Pooling ops and the native pool kernels against the naive references of
// tests/functions/pooling/pooling_reference.h: 1-, 2- and 3-D windows, cover_all, every
// float dtype and layout, the 2x2 fast path, empty windows, NaN, the backward passes,
// the gather, and the argument errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/pooling.h"
#include "tests/functions/pooling/pooling_reference.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;
using rensa::testing::pooling::Window;

namespace {

struct PoolCase {
    Shape x_shape;
    Window w;
};

// Distinct values (ties would make the argmax ambiguous), exact in every float dtype.
std::vector<double> distinct_values(int64_t n) {
    std::vector<double> v = iota(n, 0.25, -0.125 * static_cast<double>(n));
    for (size_t i = 0; i < v.size(); ++i) std::swap(v[i], v[(i * 7919) % v.size()]);
    return v;
}

std::vector<PoolCase> cases() {
    return {
        {{2, 3, 6, 6}, {{2, 2}, {2, 2}, {0, 0}, false}},   // the 2x2 fast path
        {{1, 2, 4, 41}, {{2, 2}, {2, 2}, {0, 0}, false}},  // ... with 16-wide steps, a tail and a left-over column
        {{1, 1, 2, 66}, {{2, 2}, {2, 2}, {0, 0}, false}},
        {{2, 3, 7, 5}, {{2, 2}, {2, 2}, {0, 0}, true}},  // cover_all: partial last windows
        {{1, 2, 7, 6}, {{3, 2}, {2, 1}, {1, 0}, true}},
        {{1, 2, 5, 5}, {{3, 3}, {1, 1}, {1, 1}, false}},
        {{2, 2, 9}, {{3}, {2}, {1}, true}},                          // 1-D
        {{1, 2, 4, 5, 3}, {{2, 3, 2}, {2, 2, 1}, {0, 1, 1}, true}},  // 3-D
        {{2, 0, 4, 4}, {{2, 2}, {2, 2}, {0, 0}, false}},             // size 0
    };
}

ops::PoolParams params(const Window& w) { return {w.ksize, w.stride, w.pad, w.cover_all}; }

}  // namespace

TEST_CASE("ops::max_pool against the reference over dtypes and layouts", "[core][ops][pooling]") {
    for (const PoolCase& c : cases()) {
        const std::vector<double> values = distinct_values(shape_size(c.x_shape));
        const pooling::PoolRef ref = pooling::max_pool_ref(values, c.x_shape, c.w);
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            for (const Layout layout : kAllLayouts) {
                INFO(c.x_shape << " ksize " << c.w.ksize << " " << dtype_name(dtype) << " " << layout_name(layout));
                const Array x = make_array(values, c.x_shape, dtype, layout);
                const ops::MaxPoolResult r = ops::max_pool(x, params(c.w));
                CHECK(r.y.dtype() == dtype);
                check_allclose(r.y, ref.y, ref.shape, {0, 0});
                CHECK(r.indices.to_vector<int64_t>() == ref.argmax);
            }
        }
    }
}

TEST_CASE("ops::average_pool against the reference, padding counted or not", "[core][ops][pooling]") {
    for (const PoolCase& c : cases()) {
        const std::vector<double> values = distinct_values(shape_size(c.x_shape));
        for (const bool exclude_pad : {false, true}) {
            const pooling::PoolRef ref = pooling::average_pool_ref(values, c.x_shape, c.w, exclude_pad);
            for (const Dtype dtype : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
                for (const Layout layout : kAllLayouts) {
                    INFO(c.x_shape << " ksize " << c.w.ksize << " " << dtype_name(dtype) << " " << layout_name(layout)
                                   << " exclude_pad " << exclude_pad);
                    const Array x = make_array(values, c.x_shape, dtype, layout);
                    check_allclose(ops::average_pool(x, params(c.w), exclude_pad), ref.y, ref.shape, tolerance(dtype));
                }
            }
        }
    }
}

// The transpose of average pooling: each window's gy / divisor added to its positions.
std::vector<double> average_backward_ref(const std::vector<double>& gy, const Shape& xs, const Window& w,
                                         bool exclude_pad) {
    std::vector<double> count(gy.size(), 0.0), gx(static_cast<size_t>(shape_size(xs)), 0.0);
    const int64_t plane = shape_size(xs) / (xs[0] * xs[1]);
    pooling::for_each_window(xs, w, [&](int64_t o, int64_t, int64_t at) { count[o] += at >= 0; });
    pooling::for_each_window(xs, w, [&](int64_t o, int64_t p, int64_t at) {
        const double div = exclude_pad ? count[o] : static_cast<double>(shape_size(w.ksize));
        if (at >= 0) gx[static_cast<size_t>(p * plane + at)] += gy[o] / div;
    });
    return gx;
}

TEST_CASE("ops pooling backward: scatter through indices, spread over windows", "[core][ops][pooling]") {
    for (const PoolCase& c : cases()) {
        if (shape_size(c.x_shape) == 0) continue;
        const pooling::PoolRef ref = pooling::max_pool_ref(distinct_values(shape_size(c.x_shape)), c.x_shape, c.w);
        const std::vector<double> gy = iota(shape_size(ref.shape), 0.5, 1.0);
        const int64_t plane = shape_size(c.x_shape) / (c.x_shape[0] * c.x_shape[1]);
        const int64_t out_plane = shape_size(ref.shape) / (ref.shape[0] * ref.shape[1]);
        std::vector<double> gx_max(static_cast<size_t>(shape_size(c.x_shape)), 0.0);
        for (size_t o = 0; o < gy.size(); ++o) {
            const int64_t p = static_cast<int64_t>(o) / out_plane;
            if (ref.argmax[o] >= 0) gx_max[static_cast<size_t>(p * plane + ref.argmax[o])] += gy[o];
        }
        const std::vector<double> gx_avg[2] = {average_backward_ref(gy, c.x_shape, c.w, false),
                                               average_backward_ref(gy, c.x_shape, c.w, true)};
        const Array indices = Array::from_vector(ref.argmax, ref.shape);
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            for (const Layout layout : kAllLayouts) {
                INFO(c.x_shape << " ksize " << c.w.ksize << " " << dtype_name(dtype) << " " << layout_name(layout));
                const Array g = make_array(gy, ref.shape, dtype, layout);
                check_allclose(ops::max_pool_backward(g, with_layout(indices, layout), c.x_shape, params(c.w)), gx_max,
                               c.x_shape, tolerance(dtype));
                for (const bool exclude_pad : {false, true}) {
                    check_allclose(ops::average_pool_backward(g, c.x_shape, params(c.w), exclude_pad),
                                   gx_avg[exclude_pad], c.x_shape, tolerance(dtype));
                }
            }
        }
    }
}

TEST_CASE("ops::max_pool_gather reads each plane at the indices, 0 outside", "[core][ops][pooling]") {
    const Array gx = make_array(iota(24, 1.0, 1.0), {2, 3, 4}, Dtype::kFloat32, Layout::kTransposed);
    const Array indices = Array::from_vector<int64_t>({0, 3, -1, 2, 1, 1, 3, 0, 4, 2, 2, 0}, {2, 3, 2});
    check_allclose(ops::max_pool_gather(gx, indices), {1, 4, 0, 7, 10, 10, 16, 13, 0, 19, 23, 21}, {2, 3, 2}, {0, 0});
}

TEST_CASE("ops::max_pool: empty windows give -inf and index -1, NaN propagates", "[core][ops][pooling]") {
    // size 4, k 2, s 3, pad 1, cover_all: windows start at -1, 2 and 5 (past the input).
    const Array x = make_array({1, 2, 3, 4}, {1, 1, 4}, Dtype::kFloat32);
    const ops::MaxPoolResult r = ops::max_pool(x, {{2}, {3}, {1}, true});
    const double inf = std::numeric_limits<double>::infinity();
    check_allclose(r.y, {1, 4, -inf}, {1, 1, 3}, {0, 0});
    CHECK(r.indices.to_vector<int64_t>() == std::vector<int64_t>{0, 3, -1});
    check_allclose(ops::average_pool(x, {{2}, {3}, {1}, true}, true), {1, 3.5, 0}, {1, 1, 3}, {0, 0});

    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kBFloat16}) {  // bfloat16: Note [bfloat16 2x2 max pooling]
        for (const Shape& k : {Shape{2, 2}, Shape{2, 3}}) {
            INFO(dtype_name(dtype) << " ksize " << k);
            const Array xn = make_array({1, nan, 5, 2, 3, 4, 0, 1, 2, 3, 4, 5}, {1, 1, 2, 6}, dtype);
            const Array y = ops::max_pool(xn, {k, {2, 2}, {0, 0}, false}).y;
            CHECK(std::isnan(y.to_vector<double>()[0]));
            CHECK_FALSE(std::isnan(y.to_vector<double>()[1]));
        }
    }
}

TEST_CASE("ops pooling: output sizes follow Chainer's get_conv_outsize", "[core][ops][pooling]") {
    CHECK(ops::pooling_outsize(28, 2, 2, 0, false) == 14);
    CHECK(ops::pooling_outsize(7, 2, 2, 0, false) == 3);
    CHECK(ops::pooling_outsize(7, 2, 2, 0, true) == 4);
    CHECK(ops::pooling_outsize(5, 3, 2, 1, true) == 3);
    CHECK(ops::unpooling_outsize(3, 2, 2, 0, false) == 6);
    CHECK(ops::unpooling_outsize(4, 2, 2, 0, true) == 7);
}

TEST_CASE("ops pooling: argument errors", "[core][ops][pooling]") {
    const Array x = ops::zeros({1, 2, 4, 4});
    CHECK_THROWS_AS(ops::max_pool(ops::zeros({1, 2, 4, 4}, Dtype::kInt32), {{2, 2}, {2, 2}, {0, 0}}), DtypeError);
    CHECK_THROWS_WITH(ops::max_pool(x, {{2}, {2}, {0}}, true, "max_pooling_1d"),
                      Catch::Contains("max_pooling_1d: Expect: x.ndim == 3"));
    CHECK_THROWS_AS(ops::max_pool(x, {{0, 2}, {2, 2}, {0, 0}}), ValueError);
    CHECK_THROWS_AS(ops::max_pool(x, {{2, 2}, {0, 2}, {0, 0}}), ValueError);
    CHECK_THROWS_AS(ops::average_pool(x, {{2, 2}, {2, 2}, {-1, 0}}), ValueError);
    CHECK_THROWS_AS(ops::max_pool(x, {{2, 2}, {2}, {0, 0}}), ValueError);
    CHECK_THROWS_WITH(ops::max_pool(x, {{6, 2}, {1, 1}, {0, 0}}), Catch::Contains("output size is not positive"));
    CHECK_THROWS_AS(ops::max_pool(ops::zeros({1, 1, 2, 2, 2, 2}), {{1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}}),
                    DimensionError);
    const Array gy = ops::zeros({1, 2, 2, 2});
    CHECK_THROWS_AS(
        ops::max_pool_backward(gy, ops::zeros({1, 2, 2, 2}, Dtype::kInt32), {1, 2, 4, 4}, {{2, 2}, {2, 2}, {0, 0}}),
        DtypeError);
    CHECK_THROWS_AS(ops::average_pool_backward(gy, {1, 2, 6, 6}, {{2, 2}, {2, 2}, {0, 0}}), DimensionError);
}
