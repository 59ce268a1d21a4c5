// unpooling_nd, unpooling_1d and unpooling_3d (issue 23) against the naive N-d replicate-add
// reference, gradients and double backprop, Chainer's outsize / cover_all, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/pooling.h"
#include "tests/functions/pooling/pooling_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
using rensa::testing::pooling::Window;

namespace {

struct UnpoolNdCase {
    Shape x_shape;
    F::PoolingSize ksize;
    F::UnpoolingOptions options;
    Window w;
    Shape y_shape;
};

void check_unpooling(const std::string& name, const UnpoolNdCase& c,
                     Variable (*fn)(const Variable&, F::PoolingSize, const F::UnpoolingOptions&)) {
    check_function({
        .name = name,
        .inputs = {{.shape = c.x_shape}},
        .func = [&c, fn](const Vars& xs) { return Vars{fn(xs[0], c.ksize, c.options)}; },
        .reference =
            [&c](const Arrays& xs) {
                return Arrays{f64(pooling::unpool_ref(to_doubles(xs[0]), c.y_shape, c.w), c.y_shape)};
            },
    });
}

}  // namespace

TEST_CASE("unpooling_nd", "[functions][pooling]") {
    const std::vector<UnpoolNdCase> cases{
        // 1-D: get_deconv_outsize with and without cover_all, stride and pad.
        {{2, 3, 4}, 2, {.cover_all = false}, {{2}, {2}, {0}, false}, {2, 3, 8}},
        {{2, 3, 4}, 2, {}, {{2}, {2}, {0}, true}, {2, 3, 7}},
        {{1, 2, 3}, 3, {.stride = 2, .pad = 1, .cover_all = false}, {{3}, {2}, {1}, false}, {1, 2, 5}},
        // 2-D: the same as unpooling_2d.
        {{1, 2, 2, 3}, {2, 1}, {.cover_all = false}, {{2, 1}, {2, 1}, {0, 0}, false}, {1, 2, 4, 3}},
        // 3-D, with an explicit outsize that pools back (cover_all).
        {{1, 2, 2, 2, 3}, 2, {.outsize = {3, 4, 6}}, {{2, 2, 2}, {2, 2, 2}, {0, 0, 0}, true}, {1, 2, 3, 4, 6}},
        {{1, 1, 2, 3, 2},
         {2, 3, 2},
         {.stride = 1, .cover_all = false},
         {{2, 3, 2}, {1, 1, 1}, {0, 0, 0}, false},
         {1, 1, 3, 5, 3}},
    };
    for (const UnpoolNdCase& c : cases) check_unpooling("unpooling_nd", c, &F::unpooling_nd);
}

TEST_CASE("unpooling_1d and unpooling_3d", "[functions][pooling]") {
    check_unpooling("unpooling_1d",
                    {{2, 2, 3}, 2, {.stride = 1, .cover_all = false}, {{2}, {1}, {0}, false}, {2, 2, 4}},
                    &F::unpooling_1d);
    check_unpooling(
        "unpooling_3d",
        {{1, 2, 2, 2, 2}, 2, {.pad = 1, .cover_all = false}, {{2, 2, 2}, {2, 2, 2}, {1, 1, 1}, false}, {1, 2, 2, 2, 2}},
        &F::unpooling_3d);
}

TEST_CASE("unpooling_nd: errors", "[functions][pooling]") {
    const Variable x3(ops::zeros({1, 2, 3}));
    CHECK_THROWS_WITH(F::unpooling_nd(Variable(ops::zeros({2, 3})), 2),
                      Catch::Contains("unpooling_nd: Expect: 3 <= x.ndim <= 5, Actual: 2"));
    CHECK_THROWS_AS(F::unpooling_nd(Variable(ops::zeros({1, 1, 2, 2, 2, 2})), 2), DimensionError);
    CHECK_THROWS_AS(F::unpooling_nd(Variable(ops::zeros({1, 2, 3}, Dtype::kInt32)), 2), DtypeError);
    CHECK_THROWS_WITH(F::unpooling_1d(Variable(ops::zeros({1, 2, 3, 3})), 2), Catch::Contains("unpooling_1d"));
    CHECK_THROWS_AS(F::unpooling_3d(Variable(ops::zeros({1, 2, 3, 3})), 2), DimensionError);
    CHECK_THROWS_WITH(F::unpooling_nd(x3, 2, {.outsize = {9}}), Catch::Contains("unpooling_nd: invalid outsize"));
    CHECK_THROWS_AS(F::unpooling_nd(x3, {2, 2}), ValueError);
    CHECK_THROWS_AS(F::unpooling_nd(x3, 0), ValueError);
    CHECK(F::unpooling_nd(x3, 2, {.outsize = {6}}).shape() == Shape{1, 2, 6});
    CHECK(F::unpooling_nd(x3, 2, {.outsize = {5}}).shape() == Shape{1, 2, 5});  // pools back with cover_all
}
