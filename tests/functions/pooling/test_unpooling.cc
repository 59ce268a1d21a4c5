// unpooling_2d and upsampling_2d against naive references, gradients and double backprop,
// the max pooling -> upsampling round trip, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/pooling.h"
#include "tests/functions/pooling/pooling_reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
using rensa::testing::pooling::Window;

namespace {

struct UnpoolCase {
    Shape x_shape;
    F::PoolingSize ksize;
    F::UnpoolingOptions options;
    Window w;
    Shape y_shape;
};

std::vector<UnpoolCase> unpool_cases() {
    return {
        {{2, 3, 2, 3}, 2, {.cover_all = false}, {{2, 2}, {2, 2}, {0, 0}, false}, {2, 3, 4, 6}},
        {{2, 3, 2, 3}, 2, {}, {{2, 2}, {2, 2}, {0, 0}, true}, {2, 3, 3, 5}},  // Chainer's default cover_all
        {{1, 2, 3, 3}, 2, {.outsize = {6, 5}}, {{2, 2}, {2, 2}, {0, 0}, true}, {1, 2, 6, 5}},
        {{1, 2, 3, 4}, 3, {.stride = 2, .pad = 1, .cover_all = false}, {{3, 3}, {2, 2}, {1, 1}, false}, {1, 2, 5, 7}},
    };
}

// Upsampling's reference: each x goes to its window position named by the index.
std::vector<double> upsample_ref(const std::vector<double>& x, const std::vector<int64_t>& idx, const Shape& xs,
                                 const Window& w, const Shape& ys) {
    std::vector<double> y(static_cast<size_t>(shape_size(ys)), 0.0);
    for (int64_t i = 0; i < shape_size(xs); ++i) {
        const std::vector<int64_t> at = unravel(i, xs);
        const int64_t r = at[2] * w.stride[0] - w.pad[0] + idx[i] / w.ksize[1];
        const int64_t c = at[3] * w.stride[1] - w.pad[1] + idx[i] % w.ksize[1];
        if (r >= 0 && r < ys[2] && c >= 0 && c < ys[3]) y[ravel({at[0], at[1], r, c}, ys)] += x[i];
    }
    return y;
}

}  // namespace

TEST_CASE("unpooling_2d", "[functions][pooling]") {
    for (const UnpoolCase& c : unpool_cases()) {
        check_function({
            .name = "unpooling_2d",
            .inputs = {{.shape = c.x_shape}},
            .func = [&c](const Vars& xs) { return Vars{F::unpooling_2d(xs[0], c.ksize, c.options)}; },
            .reference =
                [&c](const Arrays& xs) {
                    return Arrays{f64(pooling::unpool_ref(to_doubles(xs[0]), c.y_shape, c.w), c.y_shape)};
                },
        });
    }
}

TEST_CASE("upsampling_2d", "[functions][pooling]") {
    for (const UnpoolCase& c : unpool_cases()) {
        // Indexes of a max pooling with the same window over an array of y's shape.
        const Array source = make_array(iota(shape_size(c.y_shape), 1.0), c.y_shape, Dtype::kFloat32);
        F::MaxPoolingOptions mp{.stride = c.w.stride, .pad = c.w.pad, .cover_all = c.w.cover_all};
        const Array indexes = F::max_pooling_2d_with_indexes(Variable(source), c.ksize, mp).second;
        REQUIRE(indexes.shape() == c.x_shape);
        const std::vector<int64_t> idx = indexes.to_vector<int64_t>();
        check_function({
            .name = "upsampling_2d",
            .inputs = {{.shape = c.x_shape}},
            .func =
                [&](const Vars& xs) {
                    return Vars{F::upsampling_2d(xs[0], indexes.to_device(xs[0].device()), c.ksize, c.options)};
                },
            .reference =
                [&](const Arrays& xs) {
                    return Arrays{f64(upsample_ref(to_doubles(xs[0]), idx, c.x_shape, c.w, c.y_shape), c.y_shape)};
                },
        });
    }
}

TEST_CASE("upsampling_2d puts max pooling's maxima back in place", "[functions][pooling]") {
    const std::vector<double> v{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4};
    const Variable x(make_array(v, {1, 1, 4, 6}, Dtype::kFloat64));
    const auto [y, indexes] = F::max_pooling_2d_with_indexes(x, 2, {.cover_all = false});
    const Variable up = F::upsampling_2d(y, indexes, 2, {.outsize = {4, 6}});
    check_allclose(up.array(), {0, 0, 0, 0, 0, 9, 0, 6, 5, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 6, 0}, {1, 1, 4, 6},
                   {0, 0});
}

TEST_CASE("unpooling and upsampling: errors", "[functions][pooling]") {
    const Variable x(ops::zeros({1, 2, 2, 2}));
    CHECK_THROWS_AS(F::unpooling_2d(Variable(ops::zeros({1, 2, 2, 2}, Dtype::kInt32)), 2), DtypeError);
    CHECK_THROWS_WITH(F::unpooling_2d(x, 2, {.outsize = {7, 4}}), Catch::Contains("invalid outsize"));
    CHECK_THROWS_AS(F::unpooling_2d(Variable(ops::zeros({2, 2, 2})), 2), DimensionError);
    const Array good = ops::zeros({1, 2, 2, 2}, Dtype::kInt64);
    CHECK_THROWS_AS(F::upsampling_2d(x, ops::zeros({1, 2, 2, 2}), 2), DtypeError);
    CHECK_THROWS_AS(F::upsampling_2d(x, ops::zeros({1, 2, 2, 1}, Dtype::kInt64), 2), DimensionError);
    const Array bad = Array::from_vector<int64_t>({0, 1, 2, 3, 0, 4, 1, 1}, {1, 2, 2, 2});
    CHECK_THROWS_AS(F::upsampling_2d(x, bad, 2), IndexError);
    CHECK_THROWS_WITH(F::upsampling_2d(x, bad, 2), Catch::Contains("indexes[5] (flat position) = 4"));
    CHECK_NOTHROW(F::upsampling_2d(x, good, 2));
}
