// select_item: y[i] = x[i, t[i]] against a float64 loop; gradients; label errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("select_item", "[functions][array]") {
    for (const Shape& shape : {Shape{4, 3}, Shape{0, 3}, Shape{1, 1}}) {
        const int64_t n = shape[1];
        check_function({
            .name = "select_item",
            .inputs = {{.shape = shape}, {.shape = {shape[0]}, .values = integers(-n, n), .dtype = Dtype::kInt32}},
            .func = [](const Vars& xs) { return Vars{F::select_item(xs[0], xs[1])}; },
            .reference =
                [n](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]), t = to_doubles(xs[1]);
                    std::vector<double> y;
                    for (size_t i = 0; i < t.size(); ++i) {
                        const auto label = static_cast<int64_t>(t[i]);
                        y.push_back(x[i * static_cast<size_t>(n) + static_cast<size_t>(label < 0 ? label + n : label)]);
                    }
                    return Arrays{f64(y, {static_cast<int64_t>(t.size())})};
                },
            .backward = shape[0] > 0,
            .double_backward = shape[0] > 0,
        });
    }
}

TEST_CASE("select_item: errors", "[functions][array]") {
    const Variable x(ops::zeros({3, 4}));
    const Variable t(Array::from_vector<int32_t>({0, 4, 1}, {3}));
    CHECK_THROWS_WITH(F::select_item(x, t), Catch::Contains("t[1] = 4") && Catch::Contains("x.shape[1] = 4"));
    CHECK_THROWS_AS(F::select_item(x, t), IndexError);
    CHECK_THROWS_AS(F::select_item(x, Variable(ops::zeros({3}))), DtypeError);
    CHECK_THROWS_AS(F::select_item(x, Variable(ops::zeros({2}, Dtype::kInt32))), DimensionError);
    CHECK_THROWS_AS(F::select_item(Variable(ops::zeros({3})), Variable(ops::zeros({3}, Dtype::kInt32))),
                    DimensionError);
    CHECK_THROWS_AS(F::select_item(x, Variable(ops::zeros({3, 1}, Dtype::kInt32))), DimensionError);
}
