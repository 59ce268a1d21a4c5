// cross_covariance and decov: both reductions against float64 loops, gradients, double
// backprop where Chainer has it, errors.

#include <catch2/catch.hpp>

#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// cov[i][j] = sum_n (a[n][i] - mean_a[i]) (b[n][j] - mean_b[j]) / N, diagonal zeroed for decov.
std::vector<double> covariance(const Array& a_in, const Array& b_in, bool zero_diagonal) {
    const std::vector<double> a = to_doubles(a_in), b = to_doubles(b_in);
    const int64_t n = a_in.shape()[0], p = a_in.shape()[1], q = b_in.shape()[1];
    std::vector<double> ma(p, 0.0), mb(q, 0.0), c(static_cast<size_t>(p * q), 0.0);
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t i = 0; i < p; ++i) ma[i] += a[r * p + i] / static_cast<double>(n);
        for (int64_t j = 0; j < q; ++j) mb[j] += b[r * q + j] / static_cast<double>(n);
    }
    for (int64_t i = 0; i < p; ++i) {
        for (int64_t j = 0; j < q; ++j) {
            double s = 0;
            for (int64_t r = 0; r < n; ++r) s += (a[r * p + i] - ma[i]) * (b[r * q + j] - mb[j]);
            c[i * q + j] = zero_diagonal && i == j ? 0.0 : s / static_cast<double>(n);
        }
    }
    return c;
}

Array reduced(const std::vector<double>& c, const Shape& shape, const std::string& reduce) {
    if (reduce == "no") return f64(c, shape);
    double s = 0;
    for (const double v : c) s += v * v;
    return f64({0.5 * s}, {});
}

}  // namespace

TEST_CASE("cross_covariance", "[functions][loss]") {
    for (const std::string reduce : {"half_squared_sum", "no"}) {
        check_function({
            .name = "cross_covariance " + reduce,
            .inputs = {{.shape = {5, 3}}, {.shape = {5, 4}}},
            .func = [=](const Vars& xs) { return Vars{F::cross_covariance(xs[0], xs[1], reduce)}; },
            .reference =
                [=](const Arrays& xs) {
                    return Arrays{reduced(covariance(xs[0], xs[1], false), {3, 4}, reduce)};
                },
        });
    }
}

TEST_CASE("decov", "[functions][loss]") {
    for (const std::string reduce : {"half_squared_sum", "no"}) {
        check_function({
            .name = "decov " + reduce,
            .inputs = {{.shape = {6, 4}}},
            .func = [=](const Vars& xs) { return Vars{F::decov(xs[0], reduce)}; },
            .reference =
                [=](const Arrays& xs) {
                    return Arrays{reduced(covariance(xs[0], xs[0], true), {4, 4}, reduce)};
                },
            .double_backward = false,  // Chainer's DeCov is an old-style Function
        });
    }
}

TEST_CASE("cross_covariance and decov: errors", "[functions][loss]") {
    const Variable y(ops::zeros({4, 3})), z(ops::zeros({5, 3}));
    CHECK_THROWS_WITH(F::cross_covariance(y, y, "mean"),
                      Catch::Contains("cross_covariance: only 'half_squared_sum' and 'no' are valid"));
    CHECK_THROWS_WITH(F::cross_covariance(y, z), Catch::Contains("cross_covariance: Expect: y.shape[0] == z.shape[0]"));
    CHECK_THROWS_AS(F::cross_covariance(y, Variable(ops::zeros({4, 3}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::cross_covariance(Variable(ops::zeros({4})), y), DimensionError);
    CHECK_THROWS_WITH(F::decov(Variable(ops::zeros({4, 3, 2}))), Catch::Contains("decov: Expect: h.ndim == 2"));
    CHECK_THROWS_AS(F::decov(Variable(ops::zeros({4, 3}, Dtype::kInt32))), DtypeError);
    CHECK_THROWS_WITH(F::decov(y, "sum"), Catch::Contains("decov: only 'half_squared_sum' and 'no' are valid"));
}
