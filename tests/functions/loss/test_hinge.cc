// hinge: L1/L2 x mean/no against float64 loops, gradients (no double backprop, as Chainer), errors.

#include <catch2/catch.hpp>

#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array hinge_reference(const Arrays& xs, bool l2, bool mean) {
    const std::vector<double> x = to_doubles(xs[0]), t = to_doubles(xs[1]);
    const int64_t n = xs[0].shape()[0], k = xs[0].shape()[1];
    std::vector<double> l(x.size());
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < k; ++j) {
            const size_t at = static_cast<size_t>(i * k + j);
            const double s = static_cast<int64_t>(t[static_cast<size_t>(i)]) == j ? -1.0 : 1.0;
            const double b = std::max(0.0, 1.0 + s * x[at]);
            l[at] = l2 ? b * b : b;
            total += l[at];
        }
    }
    return mean ? f64({total / static_cast<double>(n)}, {}) : f64(l, xs[0].shape());
}

}  // namespace

TEST_CASE("hinge", "[functions][loss]") {
    for (const std::string norm : {"L1", "L2"}) {
        for (const std::string reduce : {"mean", "no"}) {
            check_function({
                .name = "hinge " + norm + " " + reduce,
                .inputs = {{.shape = {4, 3}, .values = away_from({-1.0, 1.0}, -2.0, 2.0)},
                           {.shape = {4}, .values = integers(0, 3), .dtype = Dtype::kInt32}},
                .func = [=](const Vars& xs) { return Vars{F::hinge(xs[0], xs[1], norm, reduce)}; },
                .reference =
                    [=](const Arrays& xs) { return Arrays{hinge_reference(xs, norm == "L2", reduce == "mean")}; },
                .double_backward = false,
            });
        }
    }
}

TEST_CASE("hinge: errors", "[functions][loss]") {
    const Variable x(ops::zeros({2, 3}));
    const Variable t(Array::from_vector<int32_t>({0, 2}, {2}));
    CHECK_THROWS_AS(F::hinge(x, t, "L3"), NotImplementedError);
    CHECK_THROWS_WITH(F::hinge(x, t, "L1", "sum"), Catch::Contains("only 'mean' and 'no' are valid for 'reduce'"));
    CHECK_THROWS_AS(F::hinge(x, Variable(ops::zeros({2})), "L1"), DtypeError);
    CHECK_THROWS_AS(F::hinge(x, Variable(Array::from_vector<int32_t>({0, 1, 2}, {3}))), DimensionError);
    const Variable bad(Array::from_vector<int32_t>({0, 3}, {2}));
    CHECK_THROWS_AS(F::hinge(x, bad), ValueError);
    CHECK_THROWS_WITH(F::hinge(x, bad), Catch::Contains("position 1 is 3"));
}
