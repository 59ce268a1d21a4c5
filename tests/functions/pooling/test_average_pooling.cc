// average_pooling_2d and average_pooling_nd (padding counted as 0 or left out), a
// global average, gradients and double backprop, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/pooling.h"
#include "tests/functions/pooling/pooling_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
using rensa::testing::pooling::Window;

namespace {

struct AverageCase {
    Shape x_shape;
    F::PoolingSize ksize;
    F::AveragePoolingOptions options;
    Window w;
};

void check_average(const AverageCase& c, const char* name, bool nd) {
    const bool nonempty = shape_size(c.x_shape) > 0;
    const bool exclude_pad = !c.options.pad_value.has_value();
    check_function({
        .name = name,
        .inputs = {{.shape = c.x_shape}},
        .func =
            [&c, nd](const Vars& xs) {
                return Vars{nd ? F::average_pooling_nd(xs[0], c.ksize, c.options)
                               : F::average_pooling_2d(xs[0], c.ksize, c.options)};
            },
        .reference =
            [&c, exclude_pad](const Arrays& xs) {
                const pooling::PoolRef r =
                    pooling::average_pool_ref(to_doubles(xs[0]), xs[0].shape(), c.w, exclude_pad);
                return Arrays{f64(r.y, r.shape)};
            },
        .backward = nonempty,
        .double_backward = nonempty,
    });
}

}  // namespace

TEST_CASE("average_pooling_2d", "[functions][pooling]") {
    const std::vector<AverageCase> cases{
        {{2, 3, 4, 4}, 2, {}, {{2, 2}, {2, 2}, {0, 0}, false}},
        {{1, 2, 5, 6}, {3, 2}, {.stride = {2, 1}, .pad = {1, 1}}, {{3, 2}, {2, 1}, {1, 1}, false}},
        {{1, 2, 5, 6},
         {3, 2},
         {.stride = {2, 1}, .pad = {1, 1}, .pad_value = std::nullopt},
         {{3, 2}, {2, 1}, {1, 1}, false}},
        {{2, 3, 3, 5}, {3, 5}, {}, {{3, 5}, {3, 5}, {0, 0}, false}},  // global average pooling
        {{2, 0, 4, 4}, 2, {}, {{2, 2}, {2, 2}, {0, 0}, false}},
    };
    for (const AverageCase& c : cases) check_average(c, "average_pooling_2d", false);
}

TEST_CASE("average_pooling_nd: 1-D and 3-D", "[functions][pooling]") {
    const std::vector<AverageCase> cases{
        {{2, 3, 7}, 3, {.stride = 2, .pad = 1}, {{3}, {2}, {1}, false}},
        {{2, 3, 7}, 3, {.stride = 2, .pad = 1, .pad_value = std::nullopt}, {{3}, {2}, {1}, false}},
        {{1, 2, 4, 3, 5}, {2, 2, 3}, {.stride = {1, 1, 2}, .pad = {1, 0, 1}}, {{2, 2, 3}, {1, 1, 2}, {1, 0, 1}, false}},
    };
    for (const AverageCase& c : cases) check_average(c, "average_pooling_nd", true);
}

TEST_CASE("average_pooling: errors", "[functions][pooling]") {
    const Variable x(ops::zeros({1, 2, 4, 4}));
    CHECK_THROWS_AS(F::average_pooling_2d(Variable(ops::zeros({1, 2, 4, 4}, Dtype::kInt64)), 2), DtypeError);
    CHECK_THROWS_WITH(F::average_pooling_2d(x, 2, {.pad_value = 1.0}),
                      Catch::Contains("pad_value must be either 0 or None"));
    CHECK_THROWS_WITH(F::average_pooling_2d(Variable(ops::zeros({1, 4, 4})), 2),
                      Catch::Contains("average_pooling_2d: Expect: x.ndim == 4, Actual: 3"));
    CHECK_THROWS_AS(F::average_pooling_2d(x, {2, 2}, {.stride = {1, 1, 1}}), ValueError);
    CHECK_THROWS_AS(F::average_pooling_nd(Variable(ops::zeros({3})), 1), DimensionError);
}
