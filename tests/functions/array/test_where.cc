// where: forward against a float64 loop (with broadcasting), gradients, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("where", "[functions][array]") {
    const std::vector<bool> mask{true, false, false, true, true, false};
    const Array condition = Array::from_vector<int32_t>({1, 0, 0, 1, 1, 0}, {2, 3}).astype(Dtype::kBool);
    check_function({
        .name = "where",
        .inputs = {{.shape = {2, 3}}, {.shape = {2, 3}}},
        .func =
            [condition](const Vars& xs) { return Vars{F::where(condition.to_device(xs[0].device()), xs[0], xs[1])}; },
        .reference =
            [mask](const Arrays& xs) {
                const std::vector<double> x = to_doubles(xs[0]), y = to_doubles(xs[1]);
                std::vector<double> out;
                for (size_t i = 0; i < mask.size(); ++i) out.push_back(mask[i] ? x[i] : y[i]);
                return Arrays{f64(out, {2, 3})};
            },
    });
    // condition (2, 3), x (3,), y (2, 1): both gradients are summed back to their shapes.
    check_function({
        .name = "where broadcast",
        .inputs = {{.shape = {3}}, {.shape = {2, 1}}},
        .func =
            [condition](const Vars& xs) {
                return Vars{F::where(Variable(condition.to_device(xs[0].device()), false), xs[0], xs[1])};
            },
        .reference =
            [mask](const Arrays& xs) {
                const std::vector<double> x = to_doubles(xs[0]), y = to_doubles(xs[1]);
                std::vector<double> out;
                for (size_t i = 0; i < mask.size(); ++i) out.push_back(mask[i] ? x[i % 3] : y[i / 3]);
                return Arrays{f64(out, {2, 3})};
            },
    });
}

TEST_CASE("where: errors", "[functions][array]") {
    const Variable x(ops::zeros({2, 3})), y(ops::zeros({2, 3}, Dtype::kFloat64));
    const Array c = ops::zeros({2, 3}, Dtype::kBool);
    CHECK_THROWS_AS(F::where(c, x, y), DtypeError);
    CHECK_THROWS_WITH(F::where(ops::zeros({2, 3}), x, x), Catch::Contains("condition.dtype == bool"));
    CHECK_THROWS_AS(F::where(ops::zeros({4}, Dtype::kBool), x, x), DimensionError);
}
