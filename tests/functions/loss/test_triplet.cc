// triplet: both reductions against float64 loops, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array triplet_reference(const Arrays& xs, double margin, bool mean) {
    const std::vector<double> a = to_doubles(xs[0]), p = to_doubles(xs[1]), ng = to_doubles(xs[2]);
    const int64_t n = xs[0].shape()[0], d = xs[0].shape()[1];
    std::vector<double> l(static_cast<size_t>(n));
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
        double s = margin;
        for (int64_t j = 0; j < d; ++j) {
            const size_t at = static_cast<size_t>(i * d + j);
            s += (a[at] - p[at]) * (a[at] - p[at]) - (a[at] - ng[at]) * (a[at] - ng[at]);
        }
        l[static_cast<size_t>(i)] = std::max(s, 0.0);
        total += l[static_cast<size_t>(i)];
    }
    return mean ? f64({total / static_cast<double>(n)}, {}) : f64(l, {n});
}

}  // namespace

TEST_CASE("triplet", "[functions][loss]") {
    // Row 0 and 2 are active (positive closer than negative fails the margin), row 1 is not.
    const std::vector<double> a = {0.1, 0.2, 0.3, -0.5, 0.4, 0.0, 0.6, -0.2, 0.1};
    const std::vector<double> p = {0.5, -0.3, 0.2, -0.4, 0.5, 0.1, -0.1, 0.3, 0.2};
    const std::vector<double> n = {0.3, 0.1, 0.5, 0.9, -0.8, 0.7, 0.4, 0.1, -0.3};
    for (const std::string reduce : {"mean", "no"}) {
        check_function({
            .name = "triplet " + reduce,
            .inputs = {{.shape = {3, 3}, .values = [=](int64_t, uint64_t) { return a; }},
                       {.shape = {3, 3}, .values = [=](int64_t, uint64_t) { return p; }},
                       {.shape = {3, 3}, .values = [=](int64_t, uint64_t) { return n; }}},
            .func = [=](const Vars& xs) { return Vars{F::triplet(xs[0], xs[1], xs[2], 0.2, reduce)}; },
            .reference = [=](const Arrays& xs) { return Arrays{triplet_reference(xs, 0.2, reduce == "mean")}; },
        });
    }
}

TEST_CASE("triplet: errors", "[functions][loss]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::triplet(x, x, x, -1.0), Catch::Contains("margin should be positive"));
    CHECK_THROWS_WITH(F::triplet(x, x, x, 0.2, "sum"), Catch::Contains("only 'mean' and 'no' are valid"));
    CHECK_THROWS_AS(F::triplet(x, x, Variable(ops::zeros({3, 2}))), DimensionError);
    CHECK_THROWS_AS(
        F::triplet(Variable(ops::zeros({0, 3})), Variable(ops::zeros({0, 3})), Variable(ops::zeros({0, 3}))),
        DimensionError);
}
