// bilinear: forward against a float64 loop reference, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// y[n, l] = sum_jk e1[n, j] e2[n, k] W[j, k, l] (+ sum_j e1 V1 + sum_k e2 V2 + b).
Array bilinear_reference(const Arrays& xs) {
    const std::vector<double> e1 = to_doubles(xs[0]), e2 = to_doubles(xs[1]), W = to_doubles(xs[2]);
    const int64_t N = xs[0].shape()[0], J = xs[2].shape()[0], K = xs[2].shape()[1], L = xs[2].shape()[2];
    const auto at = [](const std::vector<double>& v, int64_t i) { return v[static_cast<size_t>(i)]; };
    std::vector<double> y(static_cast<size_t>(N * L), 0.0);
    for (int64_t n = 0; n < N; ++n) {
        for (int64_t l = 0; l < L; ++l) {
            double acc = 0;
            for (int64_t j = 0; j < J; ++j) {
                for (int64_t k = 0; k < K; ++k)
                    acc += at(e1, n * J + j) * at(e2, n * K + k) * at(W, (j * K + k) * L + l);
            }
            if (xs.size() == 6) {
                const std::vector<double> V1 = to_doubles(xs[3]), V2 = to_doubles(xs[4]), b = to_doubles(xs[5]);
                for (int64_t j = 0; j < J; ++j) acc += at(e1, n * J + j) * at(V1, j * L + l);
                for (int64_t k = 0; k < K; ++k) acc += at(e2, n * K + k) * at(V2, k * L + l);
                acc += at(b, l);
            }
            y[static_cast<size_t>(n * L + l)] = acc;
        }
    }
    return f64(y, {N, L});
}

}  // namespace

TEST_CASE("bilinear", "[functions][connection]") {
    check_function({
        .name = "bilinear",
        .inputs = {{.shape = {3, 2}}, {.shape = {3, 4}}, {.shape = {2, 4, 3}}},
        .func = [](const Vars& xs) { return Vars{F::bilinear(xs[0], xs[1], xs[2])}; },
        .reference = [](const Arrays& xs) { return Arrays{bilinear_reference(xs)}; },
    });
}

TEST_CASE("bilinear: with V1, V2 and b", "[functions][connection]") {
    check_function({
        .name = "bilinear (V1, V2, b)",
        .inputs = {{.shape = {3, 2}},
                   {.shape = {3, 4}},
                   {.shape = {2, 4, 3}},
                   {.shape = {2, 3}},
                   {.shape = {4, 3}},
                   {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{F::bilinear(xs[0], xs[1], xs[2], xs[3], xs[4], xs[5])}; },
        .reference = [](const Arrays& xs) { return Arrays{bilinear_reference(xs)}; },
    });
}

TEST_CASE("bilinear: e1 and e2 of more axes are flattened", "[functions][connection]") {
    check_function({
        .name = "bilinear (3-D e1)",
        .inputs = {{.shape = {2, 1, 2}}, {.shape = {2, 3}}, {.shape = {2, 3, 2}}},
        .func = [](const Vars& xs) { return Vars{F::bilinear(xs[0], xs[1], xs[2])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{bilinear_reference({xs[0].reshape({2, 2}), xs[1], xs[2]})};
            },
        .layouts = {Layout::kContiguous, Layout::kStrided},
    });
}

TEST_CASE("bilinear: errors", "[functions][connection]") {
    const Variable e1(ops::zeros({3, 2})), e2(ops::zeros({3, 4})), W(ops::zeros({2, 4, 5}));
    const Variable V1(ops::zeros({2, 5})), V2(ops::zeros({4, 5})), b(ops::zeros({5}));
    CHECK_NOTHROW(F::bilinear(e1, e2, W, V1, V2, b));
    CHECK_THROWS_AS(F::bilinear(e1, e2, W, V1), ValueError);
    CHECK_THROWS_WITH(F::bilinear(e1, Variable(ops::zeros({3, 3})), W), Catch::Contains("prod(e2.shape[1:])"));
    CHECK_THROWS_AS(F::bilinear(e1, Variable(ops::zeros({2, 4})), W), DimensionError);
    CHECK_THROWS_AS(F::bilinear(e1, e2, Variable(ops::zeros({2, 4}))), DimensionError);
    CHECK_THROWS_AS(F::bilinear(e1, e2, W, V2, V1, b), DimensionError);
    CHECK_THROWS_AS(F::bilinear(e1, e2, Variable(ops::zeros({2, 4, 5}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::bilinear(Variable(ops::zeros({3, 2}, Dtype::kInt32)), e2, W), DtypeError);
}
