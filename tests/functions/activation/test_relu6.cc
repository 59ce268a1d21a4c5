// relu6 and crelu: forward against float64 references and hand-computed values, gradients,
// double backprop, errors.

#include <catch2/catch.hpp>

#include <algorithm>

#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("relu6", "[functions][activation]") {
    check_function({
        .name = "relu6",
        .inputs = {{.shape = {3, 4}, .values = away_from({0.0, 6.0}, -3.0, 9.0, 0.1)}},
        .func = [](const Vars& xs) { return Vars{F::relu6(xs[0])}; },
        .reference =
            [](const Arrays& xs) { return Arrays{map(xs[0], [](double v) { return std::clamp(v, 0.0, 6.0); })}; },
    });
    const Variable x(make_array({-1, 0.5, 6, 7.5}, {4}, Dtype::kFloat32));
    check_allclose(F::relu6(x).array(), {0, 0.5, 6, 6}, {4}, {0, 0});
}

TEST_CASE("crelu", "[functions][activation]") {
    for (const int axis : {1, -1, 0}) {
        const Shape shape{2, 3};
        check_function({
            .name = "crelu",
            .inputs = {{.shape = shape, .values = away_from({0.0})}},
            .func = [axis](const Vars& xs) { return Vars{F::crelu(xs[0], axis)}; },
            .reference =
                [axis, shape](const Arrays& xs) {
                    // y[..., i, ...] = relu(x) for i < n along the axis, relu(-x[..., i - n, ...]) after.
                    const int a = axis < 0 ? axis + 2 : axis;
                    Shape ys = shape;
                    ys[a] *= 2;
                    const std::vector<double> x = to_doubles(xs[0]);
                    std::vector<double> y;
                    for (int64_t i = 0; i < shape_size(ys); ++i) {
                        std::vector<int64_t> index = unravel(i, ys);
                        const bool negative = index[a] >= shape[a];
                        if (negative) index[a] -= shape[a];
                        const double v = x[static_cast<size_t>(ravel(index, shape))] * (negative ? -1 : 1);
                        y.push_back(std::max(v, 0.0));
                    }
                    return Arrays{f64(y, ys)};
                },
        });
    }
    const Variable x(make_array({-1, 2, 0, -3}, {2, 2}, Dtype::kFloat64));
    check_allclose(F::crelu(x).array(), {0, 2, 1, 0, 0, 0, 0, 3}, {2, 4}, {0, 0});
}

TEST_CASE("relu6, crelu: bad input is an error naming the function", "[functions][activation]") {
    const Variable xi(ops::zeros({2, 3}, Dtype::kInt32));
    CHECK_THROWS_WITH(F::relu6(xi), Catch::Contains("relu6: Expect: x.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_AS(F::crelu(xi), DtypeError);
    CHECK_THROWS_WITH(F::crelu(xi), Catch::Contains("crelu"));
    CHECK_THROWS_AS(F::crelu(Variable(ops::zeros({2, 3})), 2), DimensionError);
    CHECK_THROWS_WITH(F::crelu(Variable(ops::zeros({2, 3})), 2), Catch::Contains("crelu"));
    CHECK_THROWS_AS(F::crelu(Variable(ops::zeros({}))), DimensionError);
    CHECK_THROWS_WITH(F::relu6(Variable()), Catch::Contains("relu6: Expect: x to be defined"));
}
