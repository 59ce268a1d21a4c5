// diagonal, as_strided and scatter_add: forward against index maps, gradients (overlapping
// views and repeated indices included), double backprop, errors.

#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/array.h"
#include "functions/math.h"
#include "tests/functions/array/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Idx = std::vector<int64_t>;

}  // namespace

TEST_CASE("diagonal", "[functions][array]") {
    check_function({
        .name = "diagonal",
        .inputs = {{.shape = {3, 4}}},
        .func = [](const Vars& xs) { return Vars{F::diagonal(xs[0])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{array_ref::gather(xs[0], {3}, [](Idx i) { return Idx{i[0], i[0]}; })};
            },
    });
    check_function({
        .name = "diagonal offset 1",
        .inputs = {{.shape = {3, 4}}},
        .func = [](const Vars& xs) { return Vars{F::diagonal(xs[0], 1)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{array_ref::gather(xs[0], {3}, [](Idx i) { return Idx{i[0], i[0] + 1}; })};
            },
    });
    // x (2, 3, 4) over axis1 = 2, axis2 = 1 with offset -1 (numpy: starts at index 1 of axis1):
    // element k is x[a, k, k + 1].
    check_function({
        .name = "diagonal axes (2, 1) offset -1",
        .inputs = {{.shape = {2, 3, 4}}},
        .func = [](const Vars& xs) { return Vars{F::diagonal(xs[0], -1, 2, 1)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{array_ref::gather(xs[0], {2, 3}, [](Idx i) { return Idx{i[0], i[1], i[1] + 1}; })};
            },
    });
    CHECK(F::diagonal(Variable(ops::zeros({2, 3})), 5).shape() == Shape{0});
    CHECK_THROWS_AS(F::diagonal(Variable(ops::zeros({3}))), DimensionError);
    CHECK_THROWS_WITH(F::diagonal(Variable(ops::zeros({3, 3})), 0, 1, -1),
                      Catch::Contains("diagonal: axis1 and axis2 cannot be the same"));
    CHECK_THROWS_AS(F::diagonal(Variable(ops::zeros({3, 3})), 0, 0, 2), DimensionError);
}

// as_strided reads x's memory, not its logical order: the layouts swept are those whose memory
// order is the logical one (contiguous, and contiguous at an offset into a larger storage).
TEST_CASE("as_strided", "[functions][array]") {
    // Overlapping windows of a 1-D signal: y[i, j] = x[i + j]; the gradient counts the reads.
    check_function({
        .name = "as_strided windows",
        .inputs = {{.shape = {6}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::as_strided(xs[0], {4, 3}, {1, 1})};
            },
        .reference =
            [](const Arrays& xs) {
                return Arrays{array_ref::gather(xs[0], {4, 3}, [](Idx i) { return Idx{i[0] + i[1]}; })};
            },
        .layouts = {Layout::kContiguous, Layout::kOffset},
    });
    // A transposing view with a storage offset and a broadcast (stride 0) axis.
    check_function({
        .name = "as_strided transpose and broadcast",
        .inputs = {{.shape = {2, 3}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::as_strided(xs[0], {3, 2, 2}, {1, 3, 0})};
            },
        .reference =
            [](const Arrays& xs) {
                return Arrays{array_ref::gather(xs[0], {3, 2, 2}, [](Idx i) { return Idx{i[1], i[0]}; })};
            },
        .layouts = {Layout::kContiguous, Layout::kOffset},
    });
    // Chainer's AsStridedGrad divides among elements of an overlapping input.
    const Variable base(Array::from_vector<double>({1, 2, 3, 4}, {4}));
    const Array memory = base.array();
    const Variable overlapping(Array(memory.storage(), {2, 2}, {8, 8}, 0, Dtype::kFloat64));  // 1 2 / 2 3
    const Variable y = F::as_strided(overlapping, {3}, {1}, 0);  // memory positions 0, 1, 2
    CHECK(y.array().to_vector<double>() == std::vector<double>{1, 2, 3});
    F::sum(y).backward();
    CHECK(overlapping.grad().to_vector<double>() == std::vector<double>{1, 0.5, 0.5, 1});
    CHECK(F::as_strided(base, {2}, {2}, 1).array().to_vector<double>() == std::vector<double>{2, 4});
    CHECK_THROWS_WITH(F::as_strided(base, {3}, {2}), Catch::Contains("as_strided: Out of buffer: too large index"));
    CHECK_THROWS_WITH(F::as_strided(base, {2}, {-1}, 0), Catch::Contains("as_strided: Out of buffer: too small index"));
    CHECK_THROWS_AS(F::as_strided(base, {2, 2}, {1}), ValueError);
}

TEST_CASE("scatter_add", "[functions][array]") {
    // a[1:3] += b.
    check_function({
        .name = "scatter_add slice",
        .inputs = {{.shape = {4, 3}}, {.shape = {2, 3}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::scatter_add(xs[0], {Slice{1, 3}}, xs[1])};
            },
        .reference =
            [](const Arrays& xs) {
                std::vector<double> a = to_doubles(xs[0]);
                const std::vector<double> b = to_doubles(xs[1]);
                for (size_t i = 0; i < b.size(); ++i) a[3 + i] += b[i];
                return Arrays{f64(a, {4, 3})};
            },
    });
    // a[:, [0, 2, 0]] += b: the repeated column adds up (numpy.add.at).
    const Array cols = Array::from_vector<int64_t>({0, 2, 0}, {3});
    check_function({
        .name = "scatter_add repeated indices",
        .inputs = {{.shape = {2, 3}}, {.shape = {2, 3}}},
        .func =
            [cols](const Vars& xs) {
                return Vars{F::scatter_add(xs[0], {Slice{}, cols}, xs[1])};
            },
        .reference =
            [](const Arrays& xs) {
                std::vector<double> a = to_doubles(xs[0]);
                const std::vector<double> b = to_doubles(xs[1]);
                const int64_t c[3] = {0, 2, 0};
                for (int64_t r = 0; r < 2; ++r) {
                    for (int64_t j = 0; j < 3; ++j)
                        a[static_cast<size_t>(r * 3 + c[j])] += b[static_cast<size_t>(r * 3 + j)];
                }
                return Arrays{f64(a, {2, 3})};
            },
    });
    // a[0, :, [1, 1]] (advanced terms separated by a slice: the index dimension goes first).
    const Array ones = Array::from_vector<int64_t>({1, 1}, {2});
    check_function({
        .name = "scatter_add advanced to front",
        .inputs = {{.shape = {2, 3, 2}}, {.shape = {2, 3}}},
        .func =
            [ones](const Vars& xs) {
                return Vars{F::scatter_add(xs[0], {int64_t{0}, Slice{}, ones}, xs[1])};
            },
        .reference =
            [](const Arrays& xs) {
                std::vector<double> a = to_doubles(xs[0]);
                const std::vector<double> b = to_doubles(xs[1]);
                for (size_t k = 0; k < 2; ++k) {
                    for (size_t j = 0; j < 3; ++j) a[j * 2 + 1] += b[k * 3 + j];
                }
                return Arrays{f64(a, {2, 3, 2})};
            },
    });
    const Variable a(ops::zeros({3, 2}));
    CHECK_THROWS_WITH(F::scatter_add(a, {Slice{0, 2}}, Variable(ops::zeros({2}))),
                      Catch::Contains("scatter_add: Expect: b.shape == a[slices].shape"));
    CHECK_THROWS_AS(F::scatter_add(a, {int64_t{0}}, Variable(ops::zeros({2}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::scatter_add(a, {int64_t{3}}, Variable(ops::zeros({2}))), IndexError);
}
