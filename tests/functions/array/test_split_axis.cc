// split_axis and separate: forward against float64 slices, gradients (also with outputs
// that receive no gradient), errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/functions/array/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("split_axis: sections", "[functions][array]") {
    for (const int axis : {0, 1, -1}) {
        const int a = axis < 0 ? axis + 2 : axis;
        check_function({
            .name = "split_axis sections",
            .inputs = {{.shape = {4, 6}}},
            .func = [axis](const Vars& xs) { return F::split_axis(xs[0], 2, axis); },
            .reference =
                [a](const Arrays& xs) {
                    const int64_t half = xs[0].shape()[a] / 2;
                    return Arrays{array_ref::slice_axis(xs[0], a, 0, half),
                                  array_ref::slice_axis(xs[0], a, half, 2 * half)};
                },
        });
    }
}

TEST_CASE("split_axis: indices", "[functions][array]") {
    check_function({
        .name = "split_axis indices",
        .inputs = {{.shape = {2, 5, 2}}},
        .func =
            [](const Vars& xs) {
                return F::split_axis(xs[0], std::vector<int64_t>{1, 1, 4}, 1);
            },
        .reference =
            [](const Arrays& xs) {
                return Arrays{array_ref::slice_axis(xs[0], 1, 0, 1), array_ref::slice_axis(xs[0], 1, 1, 1),
                              array_ref::slice_axis(xs[0], 1, 1, 4), array_ref::slice_axis(xs[0], 1, 4, 5)};
            },
    });
    check_function({
        .name = "split_axis no indices",
        .inputs = {{.shape = {3}}},
        .func = [](const Vars& xs) { return F::split_axis(xs[0], std::vector<int64_t>{}, 0); },
        .reference = [](const Arrays& xs) { return Arrays{xs[0]}; },
    });
}

TEST_CASE("split_axis: outputs without a gradient get zeros", "[functions][array]") {
    check_function({
        .name = "split_axis one output used",
        .inputs = {{.shape = {3, 4}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::split_axis(xs[0], std::vector<int64_t>{1, 3}, 1)[1]};
            },
        .reference = [](const Arrays& xs) { return Arrays{array_ref::slice_axis(xs[0], 1, 1, 3)}; },
    });
}

TEST_CASE("split_axis: a braced single integer is an index, a plain one a count", "[functions][array]") {
    const Variable x(Array::from_vector<float>({0, 1, 2, 3, 4, 5}, {6}));
    CHECK(F::split_axis(x, {4}, 0).size() == 2);
    CHECK(F::split_axis(x, {4}, 0)[0].shape() == Shape{4});
    CHECK(F::split_axis(x, 3, 0).size() == 3);
    CHECK(F::split_axis(x, int64_t{2}, 0)[1].array().to_vector<float>() == std::vector<float>{3, 4, 5});
}

TEST_CASE("split_axis: errors", "[functions][array]") {
    const Variable x(ops::zeros({4, 6}));
    CHECK_THROWS_WITH(F::split_axis(x, 4, 1), Catch::Contains("equal division"));
    CHECK_THROWS_AS(F::split_axis(x, 0, 1), ValueError);
    CHECK_THROWS_AS(F::split_axis(x, 2, 2), DimensionError);
    CHECK_THROWS_WITH(F::split_axis(x, std::vector<int64_t>{3, 2}, 1), Catch::Contains("indices[1] = 2"));
    CHECK_THROWS_WITH(F::split_axis(x, std::vector<int64_t>{7}, 1), Catch::Contains("indices[0] = 7"));
}

TEST_CASE("separate", "[functions][array]") {
    for (const int axis : {0, 1, -1}) {
        const int a = axis < 0 ? axis + 3 : axis;
        const Shape shape{2, 3, 2};
        check_function({
            .name = "separate",
            .inputs = {{.shape = shape}},
            .func = [axis](const Vars& xs) { return F::separate(xs[0], axis); },
            .reference =
                [a, shape](const Arrays& xs) {
                    Arrays ys;
                    Shape piece = shape;
                    piece.erase(a);
                    for (int64_t i = 0; i < shape[a]; ++i) {
                        ys.push_back(array_ref::gather(xs[0], piece, [&](std::vector<int64_t> idx) {
                            idx.insert(idx.begin() + a, i);
                            return idx;
                        }));
                    }
                    return ys;
                },
        });
    }
    check_function({
        .name = "separate one output used",
        .inputs = {{.shape = {3, 2}}},
        .func = [](const Vars& xs) { return Vars{F::separate(xs[0], 0)[2]}; },
        .reference = [](const Arrays& xs) { return Arrays{array_ref::slice_axis(xs[0], 0, 2, 3).reshape({2})}; },
    });
    CHECK(F::separate(Variable(ops::zeros({0, 3})), 0).empty());
    CHECK_THROWS_AS(F::separate(Variable(ops::zeros({})), 0), DimensionError);
}
