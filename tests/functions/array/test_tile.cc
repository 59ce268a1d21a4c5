// tile and repeat: forward against index maps, gradients (copies add up), errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/functions/array/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Idx = std::vector<int64_t>;

template <class Fn>
void check_gather(const char* name, const Shape& x_shape, VariableFunction func, const Shape& shape, Fn source) {
    check_function({
        .name = name,
        .inputs = {{.shape = x_shape}},
        .func = std::move(func),
        .reference = [shape, source](const Arrays& xs) { return Arrays{array_ref::gather(xs[0], shape, source)}; },
    });
}

}  // namespace

TEST_CASE("tile", "[functions][array]") {
    check_gather(
        "tile", {2, 3},
        [](const Vars& xs) {
            return Vars{F::tile(xs[0], {2, 1})};
        },
        {4, 3},
        [](Idx i) {
            return Idx{i[0] % 2, i[1]};
        });
    check_gather(
        "tile more reps than axes", {3},
        [](const Vars& xs) {
            return Vars{F::tile(xs[0], {2, 2})};
        },
        {2, 6}, [](Idx i) { return Idx{i[1] % 3}; });
    check_gather(
        "tile fewer reps than axes", {2, 3}, [](const Vars& xs) { return Vars{F::tile(xs[0], 2)}; }, {2, 6},
        [](Idx i) {
            return Idx{i[0], i[1] % 3};
        });
    check_gather(
        "tile 0-d", {}, [](const Vars& xs) { return Vars{F::tile(xs[0], 3)}; }, {3}, [](Idx) { return Idx{}; });
    check_gather(
        "tile zero reps", {2}, [](const Vars& xs) { return Vars{F::tile(xs[0], 0)}; }, {0}, [](Idx i) { return i; });
    CHECK_THROWS_WITH(F::tile(Variable(ops::zeros({2})), {1, -1}), Catch::Contains("reps[1] = -1"));
}

TEST_CASE("repeat", "[functions][array]") {
    check_gather(
        "repeat axis", {2, 3}, [](const Vars& xs) { return Vars{F::repeat(xs[0], 2, 1)}; }, {2, 6},
        [](Idx i) {
            return Idx{i[0], i[1] / 2};
        });
    check_gather(
        "repeat flattened", {2, 2}, [](const Vars& xs) { return Vars{F::repeat(xs[0], 2)}; }, {8},
        [](Idx i) {
            return Idx{i[0] / 4, (i[0] / 2) % 2};
        });
    check_gather(
        "repeat per element", {3, 2},
        [](const Vars& xs) {
            return Vars{F::repeat(xs[0], {2, 0, 1}, 0)};
        },
        {3, 2},
        [](Idx i) {
            return Idx{i[0] < 2 ? 0 : 2, i[1]};
        });
    check_gather(
        "repeat negative axis", {2, 2}, [](const Vars& xs) { return Vars{F::repeat(xs[0], 3, -2)}; }, {6, 2},
        [](Idx i) {
            return Idx{i[0] / 3, i[1]};
        });
    check_gather(
        "repeat 0-d", {}, [](const Vars& xs) { return Vars{F::repeat(xs[0], 2)}; }, {2}, [](Idx) { return Idx{}; });
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::repeat(x, -1, 0), ValueError);
    CHECK_THROWS_WITH(F::repeat(x, {1, 2}, 1), Catch::Contains("2 repeats do not match the axis length 3"));
    CHECK_THROWS_AS(F::repeat(x, 2, 2), DimensionError);
}
