// pad_sequence and transpose_sequence: forward against float64 loops, gradients, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/functions/array/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// (B, length, 2) with xs[i] (L_i, 2) in [i, :L_i] and `padding` elsewhere.
Array pad_reference(const Arrays& xs, int64_t length, double padding) {
    const auto batch = static_cast<int64_t>(xs.size());
    std::vector<double> out(static_cast<size_t>(batch * length * 2), padding);
    for (int64_t i = 0; i < batch; ++i) {
        const std::vector<double> x = to_doubles(xs[static_cast<size_t>(i)]);
        for (size_t k = 0; k < x.size(); ++k) out[static_cast<size_t>(i * length * 2) + k] = x[k];
    }
    return f64(out, {batch, length, 2});
}

// Time step t of sequences sorted by decreasing length: rows xs[i][t] for L_i > t.
Arrays transpose_reference(const Arrays& xs) {
    Arrays ys;
    for (int64_t t = 0; t < xs[0].shape()[0]; ++t) {
        std::vector<double> rows;
        int64_t count = 0;
        for (const Array& x : xs) {
            if (x.shape()[0] <= t) continue;
            const std::vector<double> v = to_doubles(x);
            rows.insert(rows.end(), v.begin() + t * 2, v.begin() + t * 2 + 2);
            ++count;
        }
        ys.push_back(f64(rows, {count, 2}));
    }
    return ys;
}

}  // namespace

TEST_CASE("pad_sequence", "[functions][array]") {
    for (const std::optional<int64_t> length : {std::optional<int64_t>{}, std::optional<int64_t>{5}}) {
        check_function({
            .name = "pad_sequence",
            .inputs = {{.shape = {2, 2}}, {.shape = {3, 2}}, {.shape = {0, 2}}},
            .func = [length](const Vars& xs) { return Vars{F::pad_sequence(xs, length, -1.5)}; },
            .reference = [length](const Arrays& xs) { return Arrays{pad_reference(xs, length.value_or(3), -1.5)}; },
        });
    }
    CHECK(F::pad_sequence({Variable(ops::zeros({2}))}).shape() == Shape{1, 2});
}

TEST_CASE("pad_sequence: errors", "[functions][array]") {
    const Variable a(ops::zeros({3, 2})), b(ops::zeros({2, 3})), c(ops::zeros({2, 2}, Dtype::kFloat64));
    CHECK_THROWS_WITH(F::pad_sequence({a, a}, 2), Catch::Contains("length = 2"));
    CHECK_THROWS_AS(F::pad_sequence({a, b}), DimensionError);
    CHECK_THROWS_AS(F::pad_sequence({a, c}), DtypeError);
    CHECK_THROWS_AS(F::pad_sequence({}), ValueError);
    CHECK_THROWS_AS(F::pad_sequence({Variable(ops::zeros({}))}), DimensionError);
}

TEST_CASE("transpose_sequence", "[functions][array]") {
    check_function({
        .name = "transpose_sequence",
        .inputs = {{.shape = {4, 2}}, {.shape = {2, 2}}, {.shape = {2, 2}}, {.shape = {1, 2}}, {.shape = {0, 2}}},
        .func = [](const Vars& xs) { return F::transpose_sequence(xs); },
        .reference = [](const Arrays& xs) { return transpose_reference(xs); },
    });
    check_function({
        .name = "transpose_sequence some steps used",
        .inputs = {{.shape = {3, 2}}, {.shape = {1, 2}}},
        .func = [](const Vars& xs) { return Vars{F::transpose_sequence(xs)[1]}; },
        .reference = [](const Arrays& xs) { return Arrays{transpose_reference(xs)[1]}; },
    });
    // Applied twice it gives the sequences back.
    const Variable a(Array::from_vector<float>({1, 2, 3}, {3})), b(Array::from_vector<float>({4}, {1}));
    const std::vector<Variable> steps = F::transpose_sequence({a, b});
    REQUIRE(steps.size() == 3);
    CHECK(steps[0].array().to_vector<float>() == std::vector<float>{1, 4});
    const std::vector<Variable> back = F::transpose_sequence(steps);
    REQUIRE(back.size() == 2);
    CHECK(back[0].array().to_vector<float>() == std::vector<float>{1, 2, 3});
    CHECK(back[1].array().to_vector<float>() == std::vector<float>{4});
    CHECK(F::transpose_sequence({}).empty());
    CHECK(F::transpose_sequence({Variable(ops::zeros({0, 2}))}).empty());
}

TEST_CASE("transpose_sequence: errors", "[functions][array]") {
    const Variable a(ops::zeros({3, 2})), b(ops::zeros({2, 2})), c(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::transpose_sequence({b, a}), Catch::Contains("sorted by decreasing length"));
    CHECK_THROWS_AS(F::transpose_sequence({b, a}), ValueError);
    CHECK_THROWS_AS(F::transpose_sequence({a, c}), DimensionError);
}
