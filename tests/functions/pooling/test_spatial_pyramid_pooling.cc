// spatial_pyramid_pooling_2d: forward against the naive pooling loops and hand-computed
// values, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <limits>

#include "core/ops/creation.h"
#include "functions/pooling.h"
#include "tests/functions/pooling/pooling_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
using namespace rensa::testing::pooling;

namespace {

// Every level pooled by the naive loops, flattened per sample and concatenated.
Array spp_ref(const Array& x, int64_t height, bool max) {
    const Shape& xs = x.shape();
    const std::vector<double> v = to_doubles(x);
    std::vector<std::vector<double>> rows(static_cast<size_t>(xs[0]));
    for (int64_t level = 0; level < height; ++level) {
        const int64_t bins = int64_t{1} << level;
        Window w{.ksize = {}, .stride = {}, .pad = {}, .cover_all = max};
        for (int d = 2; d < 4; ++d) {
            const int64_t k = (xs[d] + bins - 1) / bins;
            w.ksize.push_back(k);
            w.stride.push_back(k);
            w.pad.push_back((k * bins - xs[d]) / 2);
        }
        const PoolRef r = max ? max_pool_ref(v, xs, w) : average_pool_ref(v, xs, w, false);
        const size_t per_sample = r.y.size() / static_cast<size_t>(xs[0]);
        for (size_t n = 0; n < rows.size(); ++n) {
            rows[n].insert(rows[n].end(), r.y.begin() + n * per_sample, r.y.begin() + (n + 1) * per_sample);
        }
    }
    std::vector<double> y;
    for (const auto& row : rows) y.insert(y.end(), row.begin(), row.end());
    return f64(y, {xs[0], static_cast<int64_t>(rows[0].size()), 1, 1});
}

}  // namespace

TEST_CASE("spatial_pyramid_pooling_2d", "[functions][pooling]") {
    struct Case {
        Shape x;
        int64_t height;
        F::PyramidPooling pooling;
    };
    const auto kMax = F::PyramidPooling::kMax, kAverage = F::PyramidPooling::kAverage;
    for (const Case& c : {Case{{2, 3, 4, 4}, 3, kMax}, Case{{1, 2, 6, 7}, 3, kMax}, Case{{2, 2, 6, 5}, 2, kAverage},
                          Case{{1, 2, 5, 7}, 3, kAverage}}) {
        const bool max = c.pooling == kMax;
        check_function({
            .name = max ? "spatial_pyramid_pooling_2d max" : "spatial_pyramid_pooling_2d average",
            .inputs = {{.shape = c.x, .values = distinct()}},
            .func = [&c](const Vars& xs) { return Vars{F::spatial_pyramid_pooling_2d(xs[0], c.height, c.pooling)}; },
            .reference = [&c, max](const Arrays& xs) { return Arrays{spp_ref(xs[0], c.height, max)}; },
        });
    }
    // Max pooling with cover_all gives 4^l bins per level: c * (1 + 4 + 16).
    CHECK(F::spatial_pyramid_pooling_2d(Variable(ops::zeros({2, 3, 5, 7})), 3).shape() == Shape{2, 63, 1, 1});
}

TEST_CASE("spatial_pyramid_pooling_2d: hand-computed values", "[functions][pooling]") {
    const Variable x(make_array({1, 2, 3, 4}, {1, 1, 2, 2}, Dtype::kFloat64));
    // Level 0 pools the whole plane, level 1 each pixel.
    check_allclose(F::spatial_pyramid_pooling_2d(x, 2).array(), {4, 1, 2, 3, 4}, {1, 5, 1, 1}, {0, 0});
    check_allclose(F::spatial_pyramid_pooling_2d(x, 2, "average").array(), {2.5, 1, 2, 3, 4}, {1, 5, 1, 1}, {0, 0});
    check_allclose(F::spatial_pyramid_pooling_2d(x, 1, "max").array(), {4}, {1, 1, 1, 1}, {0, 0});
    // Note [Pyramid windows in the padding]: level 2 of a 1 x 1 plane pads 1 around windows of
    // 1, so 8 of its 9 windows hold padding only: -inf for max, 0 for average, as in Chainer.
    const double inf = std::numeric_limits<double>::infinity();
    const Variable one(make_array({2}, {1, 1, 1, 1}, Dtype::kFloat64));
    check_allclose(F::spatial_pyramid_pooling_2d(one, 3).array(),
                   {2, 2, -inf, -inf, -inf, -inf, 2, -inf, -inf, -inf, -inf}, {1, 11, 1, 1}, {0, 0});
    check_allclose(F::spatial_pyramid_pooling_2d(one, 3, "average").array(), {2, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0},
                   {1, 11, 1, 1}, {0, 0});
}

TEST_CASE("spatial_pyramid_pooling_2d: bad input is an error", "[functions][pooling]") {
    const Variable x(ops::zeros({1, 1, 4, 4}));
    CHECK_THROWS_AS(F::spatial_pyramid_pooling_2d(x, 0), ValueError);
    CHECK_THROWS_WITH(F::spatial_pyramid_pooling_2d(x, 0),
                      Catch::Contains("spatial_pyramid_pooling_2d: Expect: 1 <= pyramid_height < 62, Actual: 0"));
    CHECK_THROWS_WITH(
        F::spatial_pyramid_pooling_2d(x, 2, "min"),
        Catch::Contains("spatial_pyramid_pooling_2d: Expect: pooling in ('max', 'average'), Actual: 'min'"));
    CHECK_THROWS_WITH(F::spatial_pyramid_pooling_2d(Variable(ops::zeros({1, 4, 4})), 2),
                      Catch::Contains("spatial_pyramid_pooling_2d: Expect: x.ndim == 4, Actual: 3"));
    CHECK_THROWS_AS(F::spatial_pyramid_pooling_2d(Variable(ops::zeros({1, 1, 4, 4}, Dtype::kInt32)), 2), DtypeError);
}
