// contrastive: both reductions against float64 loops, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array contrastive_reference(const Arrays& xs, double margin, bool mean) {
    const std::vector<double> a = to_doubles(xs[0]), b = to_doubles(xs[1]), y = to_doubles(xs[2]);
    const int64_t n = xs[0].shape()[0], d = xs[0].shape()[1];
    std::vector<double> l(static_cast<size_t>(n));
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
        double sq = 0;
        for (int64_t j = 0; j < d; ++j) {
            const double e = a[static_cast<size_t>(i * d + j)] - b[static_cast<size_t>(i * d + j)];
            sq += e * e;
        }
        const double md = std::max(margin - std::sqrt(sq), 0.0);
        const double yi = y[static_cast<size_t>(i)];
        l[static_cast<size_t>(i)] = 0.5 * (yi * sq + (1 - yi) * md * md);
        total += l[static_cast<size_t>(i)];
    }
    return mean ? f64({total / static_cast<double>(n)}, {}) : f64(l, {n});
}

}  // namespace

TEST_CASE("contrastive", "[functions][loss]") {
    // Rows 0-2 are dissimilar pairs: distances ~0.6 (inside the margin), ~2.2 (outside), ~0.9.
    const std::vector<double> x0 = {0.1, 0.2, -0.3, 0.4, 1.0, 1.2, -0.2, 0.3, 0.5, -0.6, 0.7, 0.1};
    const std::vector<double> x1 = {-0.3, 0.5, 0.1, 0.2, -0.9, -0.4, 0.3, -0.4, -0.1, 0.2, 0.6, 0.3};
    const std::vector<double> y = {0, 0, 0, 1};
    for (const std::string reduce : {"mean", "no"}) {
        check_function({
            .name = "contrastive " + reduce,
            .inputs = {{.shape = {4, 3}, .values = [=](int64_t, uint64_t) { return x0; }},
                       {.shape = {4, 3}, .values = [=](int64_t, uint64_t) { return x1; }},
                       {.shape = {4}, .values = [=](int64_t, uint64_t) { return y; }, .dtype = Dtype::kInt32}},
            .func = [=](const Vars& xs) { return Vars{F::contrastive(xs[0], xs[1], xs[2], 1.5, reduce)}; },
            .reference = [=](const Arrays& xs) { return Arrays{contrastive_reference(xs, 1.5, reduce == "mean")}; },
        });
    }
}

TEST_CASE("contrastive: errors", "[functions][loss]") {
    const Variable x(ops::zeros({2, 3}));
    const Variable y(Array::from_vector<int32_t>({0, 1}, {2}));
    CHECK_THROWS_WITH(F::contrastive(x, x, y, 0.0), Catch::Contains("margin should be positive"));
    CHECK_THROWS_WITH(F::contrastive(x, x, y, 1.0, "sum"), Catch::Contains("but 'sum' is given"));
    CHECK_THROWS_AS(F::contrastive(x, x, Variable(ops::zeros({2}))), DtypeError);
    CHECK_THROWS_AS(F::contrastive(x, x, Variable(Array::from_vector<int32_t>({0}, {1}))), DimensionError);
    CHECK_THROWS_WITH(F::contrastive(x, x, Variable(Array::from_vector<int32_t>({0, 2}, {2}))),
                      Catch::Contains("position 1 is 2"));
}
