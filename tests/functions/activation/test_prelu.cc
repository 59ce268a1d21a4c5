// prelu and maxout: forward against float64 references, gradients, double backprop, errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("prelu", "[functions][activation]") {
    // W of shape (3,) and (3, 2) against x (2, 3, 2); W of shape () (one slope).
    for (const Shape& w_shape : {Shape{3}, Shape{3, 2}, Shape{}}) {
        check_function({
            .name = "prelu",
            .inputs = {{.shape = {2, 3, 2}, .values = away_from({0.0})}, {.shape = w_shape, .low = -0.5, .high = 0.5}},
            .func = [](const Vars& xs) { return Vars{F::prelu(xs[0], xs[1])}; },
            .reference =
                [](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]), w = to_doubles(xs[1]);
                    std::vector<double> y(x.size());
                    for (size_t i = 0; i < x.size(); ++i) {
                        const size_t wi = w.size() == 1 ? 0 : w.size() == 3 ? i / 2 % 3 : i % 6;
                        y[i] = x[i] >= 0 ? x[i] : w[wi] * x[i];
                    }
                    return Arrays{f64(y, xs[0].shape())};
                },
        });
    }
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::prelu(x, Variable(ops::ones({2}))), DimensionError);
    CHECK_THROWS_AS(F::prelu(x, Variable(ops::ones({3, 1}))), DimensionError);
    CHECK_THROWS_AS(F::prelu(x, Variable(ops::ones({3}, Dtype::kFloat64))), DtypeError);
}

TEST_CASE("maxout", "[functions][activation]") {
    for (const auto& [shape, pool, axis] :
         {std::tuple{Shape{2, 6}, int64_t{3}, 1}, std::tuple{Shape{2, 4, 3}, int64_t{2}, 1},
          std::tuple{Shape{2, 3, 4}, int64_t{2}, -1}, std::tuple{Shape{3, 2}, int64_t{1}, 1}}) {
        const int ax = axis < 0 ? axis + shape.size() : axis;
        check_function({
            .name = "maxout",
            .inputs = {{.shape = shape, .values = distinct()}},
            .func = [pool, axis](const Vars& xs) { return Vars{F::maxout(xs[0], pool, axis)}; },
            .reference =
                [&shape, pool, ax](const Arrays& xs) {
                    const std::vector<double> x = to_doubles(xs[0]);
                    Shape out_shape = shape;
                    out_shape[ax] /= pool;
                    std::vector<double> y;
                    for (int64_t i = 0; i < shape_size(out_shape); ++i) {
                        std::vector<int64_t> idx = unravel(i, out_shape);
                        const int64_t base = idx[static_cast<size_t>(ax)] * pool;
                        double m = -1e300;
                        for (int64_t k = 0; k < pool; ++k) {
                            idx[static_cast<size_t>(ax)] = base + k;
                            m = std::max(m, x[static_cast<size_t>(ravel(idx, shape))]);
                        }
                        y.push_back(m);
                    }
                    return Arrays{f64(y, out_shape)};
                },
        });
    }
    const Variable x(ops::zeros({2, 6}));
    CHECK_THROWS_WITH(F::maxout(x, 4), Catch::Contains("divisible"));
    CHECK_THROWS_AS(F::maxout(x, 0), ValueError);
    CHECK_THROWS_AS(F::maxout(x, 2, 2), DimensionError);
    CHECK_THROWS_AS(F::prelu(Variable(ops::zeros({2}, Dtype::kInt32)), x), DtypeError);
}
