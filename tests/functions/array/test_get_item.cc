// get_item: basic terms (integers, slices with steps, NewAxis, Ellipsis), integer arrays
// and boolean masks (several at once), against numpy's results written as index maps; gradients; errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/functions/array/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Idx = std::vector<int64_t>;

Array int_array(const std::vector<int64_t>& values, const Shape& shape) {
    return Array::from_vector(values, shape).astype(Dtype::kInt32);
}

// One check of y = x[slices], whose numpy shape is `shape` and element i is x[source(i)].
template <class Fn>
void check_item(const char* name, const Shape& x_shape, std::vector<F::ItemIndex> slices, const Shape& shape,
                Fn source) {
    check_function({
        .name = name,
        .inputs = {{.shape = x_shape}},
        .func = [slices](const Vars& xs) { return Vars{F::get_item(xs[0], slices)}; },
        .reference = [shape, source](const Arrays& xs) { return Arrays{array_ref::gather(xs[0], shape, source)}; },
    });
}

}  // namespace

TEST_CASE("get_item: basic indexing", "[functions][array]") {
    // x[1]
    check_item("get_item int", {3, 4}, {int64_t{1}}, {4}, [](Idx i) { return Idx{1, i[0]}; });
    // x[-1, 1:4:2]
    check_item("get_item int and slice", {3, 4}, {int64_t{-1}, Slice{1, 4, 2}}, {2}, [](Idx i) {
        return Idx{2, 1 + 2 * i[0]};
    });
    // x[::-1, None, ::-2]
    check_item("get_item negative steps and None", {3, 4},
               {Slice{std::nullopt, std::nullopt, -1}, NewAxis{}, Slice{std::nullopt, std::nullopt, -2}}, {3, 1, 2},
               [](Idx i) {
                   return Idx{2 - i[0], 3 - 2 * i[2]};
               });
    // x[..., 0]
    check_item("get_item ellipsis", {2, 3, 2}, {Ellipsis{}, int64_t{0}}, {2, 3}, [](Idx i) {
        return Idx{i[0], i[1], 0};
    });
    // x[0, ..., None]
    check_item("get_item ellipsis and None", {2, 3}, {int64_t{0}, Ellipsis{}, NewAxis{}}, {3, 1}, [](Idx i) {
        return Idx{0, i[0]};
    });
    // x[1:1] (empty) and x[()] on a 0-d x
    check_item("get_item empty slice", {3, 2}, {Slice{1, 1}}, {0, 2}, [](Idx i) { return i; });
    check_item("get_item 0-d", {}, {}, {}, [](Idx i) { return i; });
    check_item("get_item 0-d None", {}, {NewAxis{}}, {1}, [](Idx) { return Idx{}; });
}

TEST_CASE("get_item: an integer array", "[functions][array]") {
    // x[[2, 0, 2, -1]]: repeats accumulate in the gradient.
    check_item("get_item array", {3, 2}, {int_array({2, 0, 2, -1}, {4})}, {4, 2}, [](Idx i) {
        const int64_t rows[] = {2, 0, 2, 2};
        return Idx{rows[i[0]], i[1]};
    });
    // x[:, [[1, 0], [1, 1]]] -> (3, 2, 2)
    check_item("get_item 2-d array", {3, 2}, {Slice{}, int_array({1, 0, 1, 1}, {2, 2})}, {3, 2, 2}, [](Idx i) {
        const int64_t cols[] = {1, 0, 1, 1};
        return Idx{i[0], cols[i[1] * 2 + i[2]]};
    });
    // x[1, [0, 2]] (adjacent advanced terms stay in place): (2, 2) over x (2, 3, 2)
    check_item("get_item int next to array", {2, 3, 2}, {int64_t{1}, int_array({0, 2}, {2})}, {2, 2}, [](Idx i) {
        return Idx{1, 2 * i[0], i[1]};
    });
    // x[0, :, [1, 0, 1]] (separated: the array's dimension goes first): (3, 3) over x (2, 3, 2)
    check_item("get_item int apart from array", {2, 3, 2}, {int64_t{0}, Slice{}, int_array({1, 0, 1}, {3})}, {3, 3},
               [](Idx i) {
                   const int64_t last[] = {1, 0, 1};
                   return Idx{0, i[1], last[i[0]]};
               });
    // x[None, ::-1, 0-d array]
    check_item("get_item 0-d array", {3, 2}, {NewAxis{}, Slice{std::nullopt, std::nullopt, -1}, int_array({1}, {})},
               {1, 3}, [](Idx i) {
                   return Idx{2 - i[1], 1};
               });
    // x[[]] -> (0, 2)
    check_item("get_item empty array", {3, 2}, {int_array({}, {0})}, {0, 2}, [](Idx i) { return i; });
    // the single-term overloads
    const Variable x(Array::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
    CHECK(F::get_item(x, int_array({2, 0}, {2})).array().to_vector<float>() == std::vector<float>{5, 6, 1, 2});
    CHECK(F::get_item(x, -2).array().to_vector<float>() == std::vector<float>{3, 4});
}

namespace {

Array mask(const std::vector<int64_t>& values, const Shape& shape) {
    return Array::from_vector(values, shape).astype(Dtype::kBool);
}

}  // namespace

TEST_CASE("get_item: several advanced indices and masks, as numpy", "[functions][array]") {
    // x (2, 3, 4)[[0, 1], :, [1, 2]] -> (2, 3): separated, so the broadcast dimension goes first.
    check_item("get_item two arrays apart", {2, 3, 4}, {int_array({0, 1}, {2}), Slice{}, int_array({1, 2}, {2})},
               {2, 3}, [](Idx i) {
                   return Idx{i[0], i[1], 1 + i[0]};
               });
    // x[[0, 1], [1, 2]] -> (2, 4): adjacent, in place.
    check_item("get_item two adjacent arrays", {2, 3, 4}, {int_array({0, 1}, {2}), int_array({1, -1}, {2})}, {2, 4},
               [](Idx i) {
                   return Idx{i[0], i[0] == 0 ? 1 : 2, i[1]};
               });
    // x[:, [[0], [1]], [1, 2]] -> (2, 2, 2): the arrays broadcast to (2, 2) at axis 1.
    check_item("get_item broadcast arrays", {2, 3, 4}, {Slice{}, int_array({0, 1}, {2, 1}), int_array({1, 2}, {2})},
               {2, 2, 2}, [](Idx i) {
                   return Idx{i[0], i[1], 1 + i[2]};
               });
    // x[:, [2, 0], 1:3, [1, 1]] over x (2, 3, 3, 2): separated by a slice -> (2, 2, 2).
    check_item("get_item arrays around a slice", {2, 3, 3, 2},
               {Slice{}, int_array({2, 0}, {2}), Slice{1, 3}, int_array({1, 1}, {2})}, {2, 2, 2}, [](Idx i) {
                   return Idx{i[1], i[0] == 0 ? 2 : 0, 1 + i[2], 1};
               });
    // x[[True, False], :, [1, 2]] -> (1, 3)... the mask is one array ([0]), broadcast with [1, 2]: (2, 3).
    check_item("get_item mask with an array", {2, 3, 4}, {mask({1, 0}, {2}), Slice{}, int_array({1, 2}, {2})}, {2, 3},
               [](Idx i) {
                   return Idx{0, i[1], 1 + i[0]};
               });
    // x[mask (2, 3)] with true at (0, 1), (1, 0), (1, 2) -> (3, 4).
    check_item("get_item 2-d mask", {2, 3, 4}, {mask({0, 1, 0, 1, 0, 1}, {2, 3})}, {3, 4}, [](Idx i) {
        const int64_t rows[] = {0, 1, 1}, cols[] = {1, 0, 2};
        return Idx{rows[i[0]], cols[i[0]], i[1]};
    });
    // x[1, mask (3, 4) over the last two axes] -> (2,) with true at (0, 3), (2, 1).
    std::vector<int64_t> flags(12, 0);
    flags[3] = flags[9] = 1;
    check_item("get_item int and mask", {2, 3, 4}, {int64_t{1}, mask(flags, {3, 4})}, {2}, [](Idx i) {
        return Idx{1, i[0] == 0 ? 0 : 2, i[0] == 0 ? 3 : 1};
    });
    // x[:, mask (3,)] with all false -> (2, 0, 4).
    check_item("get_item empty mask", {2, 3, 4}, {Slice{}, mask({0, 0, 0}, {3})}, {2, 0, 4}, [](Idx i) { return i; });
}

TEST_CASE("get_item: errors", "[functions][array]") {
    const Variable x(ops::zeros({3, 4}));
    CHECK_THROWS_WITH(F::get_item(x, {Slice{}, int64_t{4}}),
                      Catch::Contains("index 4 at position 1") && Catch::Contains("axis 1 with size 4"));
    CHECK_THROWS_AS(F::get_item(x, -4), IndexError);
    CHECK_THROWS_WITH(F::get_item(x, {Slice{}, int_array({0, 5, 1}, {3})}),
                      Catch::Contains("index 5 at position (1,)") && Catch::Contains("axis 1 with size 4"));
    CHECK_THROWS_WITH(F::get_item(x, int_array({0, 1, 2, -4}, {2, 2})), Catch::Contains("index -4 at position (1, 1)"));
    CHECK_THROWS_AS(F::get_item(x, {int64_t{0}, int64_t{0}, int64_t{0}}), IndexError);
    CHECK_THROWS_AS(F::get_item(x, {Ellipsis{}, Ellipsis{}}), IndexError);
    CHECK_THROWS_WITH(F::get_item(x, ops::zeros({2}, Dtype::kBool)),
                      Catch::Contains("boolean index did not match indexed array along dimension 0; dimension is 3 "
                                      "but corresponding boolean dimension is 2"));
    CHECK_THROWS_WITH(F::get_item(x, {int_array({0, 1}, {2}), int_array({0, 1, 2}, {3})}),
                      Catch::Contains("get_item: shapes (2,) and (3,) cannot be broadcast"));
    CHECK_THROWS_AS(F::get_item(x, ops::zeros({}, Dtype::kBool)), NotImplementedError);
    CHECK_THROWS_AS(F::get_item(x, ops::zeros({2})), DtypeError);
    CHECK_THROWS_AS(F::get_item(x, {Slice{0, 2, 0}}), ValueError);
}
