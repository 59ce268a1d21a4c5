// transpose, swapaxes, flip, expand_dims, squeeze, flatten, broadcast and autograd's
// reshape / broadcast_to / sum_to as F::: forward against index maps, gradients, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/functions/array/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Idx = std::vector<int64_t>;

// y = func(x) with y[i] = x[source(i)] and y of shape `shape`.
template <class Fn>
void check_view(const char* name, const Shape& x_shape, VariableFunction func, const Shape& shape, Fn source) {
    check_function({
        .name = name,
        .inputs = {{.shape = x_shape}},
        .func = std::move(func),
        .reference = [shape, source](const Arrays& xs) { return Arrays{array_ref::gather(xs[0], shape, source)}; },
    });
}

// Same elements in the same row-major order, another shape.
Arrays same_order(const Arrays& xs, const Shape& shape) { return Arrays{f64(to_doubles(xs[0]), shape)}; }

}  // namespace

TEST_CASE("transpose and swapaxes", "[functions][array]") {
    check_view(
        "transpose", {2, 3, 4},
        [](const Vars& xs) {
            return Vars{F::transpose(xs[0], {1, 2, 0})};
        },
        {3, 4, 2},
        [](Idx i) {
            return Idx{i[2], i[0], i[1]};
        });
    check_view(
        "transpose default", {2, 3}, [](const Vars& xs) { return Vars{F::transpose(xs[0])}; }, {3, 2},
        [](Idx i) {
            return Idx{i[1], i[0]};
        });
    check_view(
        "transpose negative axes", {2, 3},
        [](const Vars& xs) {
            return Vars{F::transpose(xs[0], {-1, 0})};
        },
        {3, 2},
        [](Idx i) {
            return Idx{i[1], i[0]};
        });
    check_view(
        "transpose 0-d", {}, [](const Vars& xs) { return Vars{F::transpose(xs[0])}; }, {}, [](Idx i) { return i; });
    check_view(
        "swapaxes", {2, 3, 4}, [](const Vars& xs) { return Vars{F::swapaxes(xs[0], 0, -1)}; }, {4, 3, 2},
        [](Idx i) {
            return Idx{i[2], i[1], i[0]};
        });
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::transpose(x, {0}), DimensionError);
    CHECK_THROWS_AS(F::transpose(x, {0, 0}), DimensionError);
    CHECK_THROWS_AS(F::transpose(x, {0, 2}), DimensionError);
    CHECK_THROWS_WITH(F::swapaxes(x, 0, 2), Catch::Contains("axis2 = 2"));
}

TEST_CASE("flip", "[functions][array]") {
    check_view(
        "flip", {2, 3}, [](const Vars& xs) { return Vars{F::flip(xs[0], 1)}; }, {2, 3},
        [](Idx i) {
            return Idx{i[0], 2 - i[1]};
        });
    check_view(
        "flip negative axis", {2, 3}, [](const Vars& xs) { return Vars{F::flip(xs[0], -2)}; }, {2, 3},
        [](Idx i) {
            return Idx{1 - i[0], i[1]};
        });
    CHECK_THROWS_AS(F::flip(Variable(ops::zeros({2, 3})), 2), DimensionError);
    CHECK_THROWS_AS(F::flip(Variable(ops::zeros({})), 0), DimensionError);
}

TEST_CASE("expand_dims, squeeze and flatten", "[functions][array]") {
    for (const int axis : {0, 2, -1, -3}) {
        const int a = axis < 0 ? axis + 3 : axis;
        Shape shape{2, 3};
        shape.insert(a, 1);
        check_function({
            .name = "expand_dims",
            .inputs = {{.shape = {2, 3}}},
            .func = [axis](const Vars& xs) { return Vars{F::expand_dims(xs[0], axis)}; },
            .reference = [shape](const Arrays& xs) { return same_order(xs, shape); },
        });
    }
    check_function({
        .name = "squeeze all",
        .inputs = {{.shape = {1, 2, 1, 3, 1}}},
        .func = [](const Vars& xs) { return Vars{F::squeeze(xs[0])}; },
        .reference =
            [](const Arrays& xs) {
                return same_order(xs, {2, 3});
            },
    });
    check_function({
        .name = "squeeze axes",
        .inputs = {{.shape = {1, 2, 1, 3, 1}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::squeeze(xs[0], Axes{0, -1})};
            },
        .reference =
            [](const Arrays& xs) {
                return same_order(xs, {2, 1, 3});
            },
    });
    check_function({
        .name = "squeeze to 0-d",
        .inputs = {{.shape = {1, 1}}},
        .func = [](const Vars& xs) { return Vars{F::squeeze(xs[0], 1)}; },
        .reference = [](const Arrays& xs) { return same_order(xs, {1}); },
    });
    check_function({
        .name = "flatten",
        .inputs = {{.shape = {2, 3, 2}}},
        .func = [](const Vars& xs) { return Vars{F::flatten(xs[0])}; },
        .reference = [](const Arrays& xs) { return same_order(xs, {12}); },
    });
    CHECK(F::flatten(Variable(ops::zeros({}))).shape() == Shape{1});
    CHECK(F::squeeze(Variable(ops::zeros({1, 1}))).shape() == Shape{});
    const Variable x(ops::zeros({1, 2}));
    CHECK_THROWS_WITH(F::squeeze(x, 1), Catch::Contains("size not equal to one"));
    CHECK_THROWS_AS(F::squeeze(x, 2), DimensionError);
    CHECK_THROWS_AS(F::expand_dims(x, 3), DimensionError);
    CHECK_THROWS_AS(F::expand_dims(x, -4), DimensionError);
}

TEST_CASE("reshape, broadcast_to, sum_to and broadcast", "[functions][array]") {
    check_function({
        .name = "reshape",
        .inputs = {{.shape = {2, 3, 2}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::reshape(xs[0], {3, -1})};
            },
        .reference =
            [](const Arrays& xs) {
                return same_order(xs, {3, 4});
            },
    });
    check_view(
        "broadcast_to", {3, 1},
        [](const Vars& xs) {
            return Vars{F::broadcast_to(xs[0], {2, 3, 2})};
        },
        {2, 3, 2},
        [](Idx i) {
            return Idx{i[1], 0};
        });
    check_function({
        .name = "sum_to",
        .inputs = {{.shape = {2, 3, 2}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::sum_to(xs[0], {3, 1})};
            },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> x = to_doubles(xs[0]);
                std::vector<double> y(3, 0.0);
                for (int64_t i = 0; i < 12; ++i)
                    y[static_cast<size_t>(unravel(i, {2, 3, 2})[1])] += x[static_cast<size_t>(i)];
                return Arrays{f64(y, {3, 1})};
            },
    });
    check_function({
        .name = "broadcast",
        .inputs = {{.shape = {3, 1}}, {.shape = {2}}, {.shape = {}}},
        .func = [](const Vars& xs) { return F::broadcast(xs); },
        .reference =
            [](const Arrays& xs) {
                const Shape shape{3, 2};
                return Arrays{array_ref::gather(xs[0], shape,
                                                [](Idx i) {
                                                    return Idx{i[0], 0};
                                                }),
                              array_ref::gather(xs[1], shape, [](Idx i) { return Idx{i[1]}; }),
                              array_ref::gather(xs[2], shape, [](Idx) { return Idx{}; })};
            },
    });
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::reshape(x, {4}), Error);
    CHECK_THROWS_AS(F::broadcast_to(x, {3, 3}), DimensionError);
    CHECK_THROWS_AS(F::sum_to(x, {2}), DimensionError);
    CHECK_THROWS_AS(F::broadcast({x, Variable(ops::zeros({2}))}), DimensionError);
    CHECK_THROWS_AS(F::broadcast({}), ValueError);
}
