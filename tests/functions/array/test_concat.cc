// concat, stack, hstack, vstack: forward against float64 references, gradients, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/functions/array/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// x with a new axis of length 1 at `axis` (float64).
Array expand(const Array& x, int axis) {
    Shape shape = x.shape();
    shape.insert(axis, 1);
    return f64(to_doubles(x), shape);
}

}  // namespace

TEST_CASE("concat", "[functions][array]") {
    for (const int axis : {1, -1, 0}) {
        const int a = axis < 0 ? axis + 2 : axis;
        Shape s0{2, 3}, s1{2, 3}, s2{2, 3};
        s1[a] = 1, s2[a] = 0;
        check_function({
            .name = "concat",
            .inputs = {{.shape = s0}, {.shape = s1}, {.shape = s2}},
            .func = [axis](const Vars& xs) { return Vars{F::concat(xs, axis)}; },
            .reference = [a](const Arrays& xs) { return Arrays{array_ref::concat(xs, a)}; },
        });
    }
}

TEST_CASE("concat: one input and the default axis", "[functions][array]") {
    check_function({
        .name = "concat single",
        .inputs = {{.shape = {2, 3, 2}}},
        .func = [](const Vars& xs) { return Vars{F::concat(xs)}; },
        .reference = [](const Arrays& xs) { return Arrays{xs[0]}; },
    });
}

TEST_CASE("concat: errors", "[functions][array]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({3, 3})), c(ops::zeros({2, 3}, Dtype::kFloat64));
    CHECK_THROWS_WITH(F::concat({a, b}, 1), Catch::Contains("xs[1].shape[0] == xs[0].shape[0]"));
    CHECK_THROWS_AS(F::concat({a, c}), DtypeError);
    CHECK_THROWS_AS(F::concat({}), ValueError);
    CHECK_THROWS_WITH(F::concat({a, a}, 2), Catch::Contains("axis = 2"));
    CHECK_THROWS_AS(F::concat({Variable(ops::zeros({}))}, 0), DimensionError);
    CHECK_THROWS_AS(F::concat({a, Variable(ops::zeros({2, 3, 1}))}), DimensionError);
}

TEST_CASE("stack", "[functions][array]") {
    for (const int axis : {0, 1, 2, -1}) {
        const int a = axis < 0 ? axis + 3 : axis;
        check_function({
            .name = "stack",
            .inputs = {{.shape = {2, 3}}, {.shape = {2, 3}}},
            .func = [axis](const Vars& xs) { return Vars{F::stack(xs, axis)}; },
            .reference =
                [a](const Arrays& xs) {
                    return Arrays{array_ref::concat({expand(xs[0], a), expand(xs[1], a)}, a)};
                },
        });
    }
    check_function({
        .name = "stack 0-d",
        .inputs = {{.shape = {}}, {.shape = {}}, {.shape = {}}},
        .func = [](const Vars& xs) { return Vars{F::stack(xs)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{f64({to_doubles(xs[0])[0], to_doubles(xs[1])[0], to_doubles(xs[2])[0]}, {3})};
            },
    });
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({2, 2}));
    CHECK_THROWS_WITH(F::stack({a, b}), Catch::Contains("xs[1].shape == xs[0].shape"));
    CHECK_THROWS_AS(F::stack({a, a}, 3), DimensionError);
}

TEST_CASE("hstack and vstack", "[functions][array]") {
    check_function({
        .name = "hstack 2-d",
        .inputs = {{.shape = {2, 1}}, {.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::hstack(xs)}; },
        .reference = [](const Arrays& xs) { return Arrays{array_ref::concat(xs, 1)}; },
    });
    check_function({
        .name = "hstack 1-d",
        .inputs = {{.shape = {2}}, {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{F::hstack(xs)}; },
        .reference = [](const Arrays& xs) { return Arrays{array_ref::concat(xs, 0)}; },
    });
    check_function({
        .name = "hstack 0-d",
        .inputs = {{.shape = {}}, {.shape = {}}},
        .func = [](const Vars& xs) { return Vars{F::hstack(xs)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{f64({to_doubles(xs[0])[0], to_doubles(xs[1])[0]}, {2})};
            },
    });
    check_function({
        .name = "vstack 1-d",
        .inputs = {{.shape = {3}}, {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{F::vstack(xs)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{array_ref::concat({expand(xs[0], 0), expand(xs[1], 0)}, 0)};
            },
    });
    check_function({
        .name = "vstack 2-d",
        .inputs = {{.shape = {1, 3}}, {.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::vstack(xs)}; },
        .reference = [](const Arrays& xs) { return Arrays{array_ref::concat(xs, 0)}; },
    });
    CHECK(F::vstack({Variable(ops::zeros({})), Variable(ops::zeros({}))}).shape() == Shape{2, 1});
    CHECK_THROWS_AS(F::hstack({Variable(ops::zeros({2, 3})), Variable(ops::zeros({3, 3}))}), DimensionError);
    CHECK_THROWS_AS(F::vstack({Variable(ops::zeros({3})), Variable(ops::zeros({2}))}), DimensionError);
}
