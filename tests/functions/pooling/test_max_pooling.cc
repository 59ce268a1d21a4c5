// max_pooling_2d, max_pooling_nd and max_pooling_2d_with_indexes: forward against the
// naive reference, gradients, double backprop, indexes in Chainer's format, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/pooling.h"
#include "tests/functions/pooling/pooling_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
using rensa::testing::pooling::Window;

namespace {

Arrays max_reference(const Arrays& xs, const Window& w) {
    const pooling::PoolRef r = pooling::max_pool_ref(to_doubles(xs[0]), xs[0].shape(), w);
    return {f64(r.y, r.shape)};
}

struct MaxCase {
    Shape x_shape;
    F::PoolingSize ksize;
    F::MaxPoolingOptions options;
    Window w;  // the same window for the reference
};

}  // namespace

TEST_CASE("max_pooling_2d", "[functions][pooling]") {
    const std::vector<MaxCase> cases{
        {{2, 3, 4, 4}, 2, {.cover_all = false}, {{2, 2}, {2, 2}, {0, 0}, false}},
        {{2, 2, 5, 4}, 2, {}, {{2, 2}, {2, 2}, {0, 0}, true}},  // Chainer's defaults: cover_all
        {{1, 2, 5, 6}, {3, 2}, {.stride = {2, 1}, .pad = {1, 0}}, {{3, 2}, {2, 1}, {1, 0}, true}},
        {{2, 1, 5, 5}, 3, {.stride = 2, .pad = 1, .cover_all = false}, {{3, 3}, {2, 2}, {1, 1}, false}},
        {{0, 2, 4, 4}, 2, {}, {{2, 2}, {2, 2}, {0, 0}, true}},
    };
    for (const MaxCase& c : cases) {
        const bool nonempty = shape_size(c.x_shape) > 0;
        check_function({
            .name = "max_pooling_2d",
            .inputs = {{.shape = c.x_shape, .values = distinct()}},
            .func = [&c](const Vars& xs) { return Vars{F::max_pooling_2d(xs[0], c.ksize, c.options)}; },
            .reference = [&c](const Arrays& xs) { return max_reference(xs, c.w); },
            .backward = nonempty,
            .double_backward = nonempty,
        });
    }
}

TEST_CASE("max_pooling_nd: 1-D and 3-D", "[functions][pooling]") {
    const std::vector<MaxCase> cases{
        {{2, 3, 7}, 3, {.stride = 2, .pad = 1}, {{3}, {2}, {1}, true}},
        {{1, 2, 4, 3, 5},
         {2, 2, 3},
         {.stride = {2, 1, 2}, .cover_all = false},
         {{2, 2, 3}, {2, 1, 2}, {0, 0, 0}, false}},
        {{1, 2, 4, 4}, 2, {}, {{2, 2}, {2, 2}, {0, 0}, true}},
    };
    for (const MaxCase& c : cases) {
        check_function({
            .name = "max_pooling_nd",
            .inputs = {{.shape = c.x_shape, .values = distinct()}},
            .func = [&c](const Vars& xs) { return Vars{F::max_pooling_nd(xs[0], c.ksize, c.options)}; },
            .reference = [&c](const Arrays& xs) { return max_reference(xs, c.w); },
        });
    }
}

TEST_CASE("max_pooling_2d_with_indexes: Chainer's window-relative argmax", "[functions][pooling]") {
    // One 4x5 plane, ksize 3, stride 2, pad 1, cover_all: 3x3 windows starting at rows and cols -1, 1, 3.
    const std::vector<double> v{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4};
    const Variable x(make_array(v, {1, 1, 4, 5}, Dtype::kFloat32));
    const auto [y, indexes] = F::max_pooling_2d_with_indexes(x, 3, {.stride = 2, .pad = 1});
    const pooling::PoolRef ref = pooling::max_pool_ref(v, {1, 1, 4, 5}, {{3, 3}, {2, 2}, {1, 1}, true});
    REQUIRE(ref.shape == Shape{1, 1, 3, 3});
    check_allclose(y.array(), ref.y, ref.shape, {0, 0});
    CHECK(indexes.dtype() == Dtype::kInt64);
    REQUIRE(indexes.shape() == ref.shape);
    const std::vector<int64_t> got = indexes.to_vector<int64_t>();
    CHECK(got[0] == 7);  // window (0, 0): rows -1..1, cols -1..1; its max 9 at (1, 0) is ky 2, kx 1
    for (int64_t o = 0; o < 9; ++o) {
        const int64_t oy = o / 3, ox = o % 3;
        const int64_t ky = ref.argmax[o] / 5 - (oy * 2 - 1), kx = ref.argmax[o] % 5 - (ox * 2 - 1);
        CHECK(got[o] == ky * 3 + kx);
    }
}

TEST_CASE("max_pooling: errors", "[functions][pooling]") {
    const Variable x(ops::zeros({1, 2, 4, 4}));
    CHECK_THROWS_AS(F::max_pooling_2d(Variable(ops::zeros({1, 2, 4, 4}, Dtype::kInt32)), 2), DtypeError);
    CHECK_THROWS_WITH(F::max_pooling_2d(Variable(ops::zeros({2, 4, 4})), 2),
                      Catch::Contains("max_pooling_2d: Expect: x.ndim == 4, Actual: 3"));
    CHECK_THROWS_WITH(F::max_pooling_2d(x, {2, 2, 2}), Catch::Contains("ksize"));
    CHECK_THROWS_AS(F::max_pooling_2d(x, 0), ValueError);
    CHECK_THROWS_AS(F::max_pooling_2d(x, 2, {.stride = 0}), ValueError);
    CHECK_THROWS_AS(F::max_pooling_2d(x, 2, {.pad = -1}), ValueError);
    CHECK_THROWS_AS(F::max_pooling_2d(x, 5, {.cover_all = false}), DimensionError);
    CHECK_THROWS_AS(F::max_pooling_nd(Variable(ops::zeros({4, 4})), 2), DimensionError);
    CHECK_THROWS_AS(F::max_pooling_nd(Variable(ops::zeros({1, 1, 2, 2, 2, 2})), 1), DimensionError);
}
