// simplified_dropconnect: with a given mask (per sample and shared) against a float64
// reference, gradients in x, W, b and double backprop; the mask it draws, train=false, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/connection.h"
#include "functions/noise.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// y[s, j] = sum_i W[j, i] mask[s or -, j, i] x[s, i] / (1 - ratio) + b[j].
Array dropconnect_ref(const Array& x, const Array& W, const Array* b, const Array& mask, double ratio) {
    const std::vector<double> xv = to_doubles(x), wv = to_doubles(W), mv = to_doubles(mask);
    const std::vector<double> bv = b != nullptr ? to_doubles(*b) : std::vector<double>{};
    const int64_t n = x.shape()[0], m = W.shape()[0], k = W.shape()[1];
    const bool batchwise = mask.ndim() == 3;
    std::vector<double> y;
    for (int64_t s = 0; s < n; ++s) {
        for (int64_t j = 0; j < m; ++j) {
            double acc = bv.empty() ? 0.0 : bv[size_t(j)];
            for (int64_t i = 0; i < k; ++i) {
                const double keep = mv[size_t(((batchwise ? s * m : 0) + j) * k + i)] != 0 ? 1 / (1 - ratio) : 0;
                acc += wv[size_t(j * k + i)] * keep * xv[size_t(s * k + i)];
            }
            y.push_back(acc);
        }
    }
    return f64(y, {n, m});
}

}  // namespace

TEST_CASE("simplified_dropconnect with a given mask", "[functions][noise]") {
    for (const bool batchwise : {true, false}) {
        for (const bool bias : {true, false}) {
            const Shape mask_shape = batchwise ? Shape{3, 4, 6} : Shape{4, 6};
            std::vector<InputSpec> inputs{{.shape = {3, 2, 3}}, {.shape = {4, 6}}};
            if (bias) inputs.push_back({.shape = {4}});
            inputs.push_back({.shape = mask_shape, .values = integers(0, 2), .dtype = Dtype::kInt32});
            check_function({
                .name = "simplified_dropconnect",
                .inputs = inputs,
                .func =
                    [bias, batchwise](const Vars& xs) {
                        return Vars{F::simplified_dropconnect(xs[0], xs[1], bias ? xs[2] : Variable(), 0.4, true,
                                                              xs.back().array(), batchwise)};
                    },
                .reference =
                    [bias](const Arrays& xs) {
                        return Arrays{dropconnect_ref(xs[0], xs[1], bias ? &xs[2] : nullptr, xs.back(), 0.4)};
                    },
            });
        }
    }
}

TEST_CASE("simplified_dropconnect: drawn masks and train=false", "[functions][noise]") {
    rensa::seed(5);
    const Variable x(ops::ones({64, 1})), W(ops::ones({2, 1}));
    // Each sample draws its own mask: about half of the 128 weights kept, each kept one as 2.
    const std::vector<double> y = to_doubles(F::simplified_dropconnect(x, W).array());
    int kept = 0;
    for (double v : y) {
        CHECK((v == 0.0 || v == 2.0));
        kept += v == 2.0;
    }
    CHECK(kept > 40);
    CHECK(kept < 88);
    // A shared mask: every sample sees the same weights.
    const std::vector<double> shared = to_doubles(F::simplified_dropconnect(x, W, {}, 0.5, true, {}, false).array());
    for (size_t s = 2; s < shared.size(); ++s) CHECK(shared[s] == shared[s % 2]);
    // train=false: the plain linear function.
    const Variable x2(make_array({1, 2, 3, 4}, {2, 2}, Dtype::kFloat32)),
        W2(make_array({1, -1, 2, 0.5}, {2, 2}, Dtype::kFloat32));
    CHECK(to_doubles(F::simplified_dropconnect(x2, W2, {}, 0.9, false).array()) ==
          to_doubles(F::linear(x2, W2).array()));
}

TEST_CASE("simplified_dropconnect: errors", "[functions][noise]") {
    const Variable x(ops::zeros({2, 3})), W(ops::zeros({4, 3}));
    CHECK_THROWS_WITH(F::simplified_dropconnect(x, Variable(ops::zeros({4, 2}))),
                      Catch::Contains("simplified_dropconnect: Expect: prod(x.shape[1:]) == W.shape[1]"));
    CHECK_THROWS_AS(F::simplified_dropconnect(x, W, Variable(ops::zeros({3}))), DimensionError);
    CHECK_THROWS_AS(F::simplified_dropconnect(x, W, {}, 1.0), ValueError);
    CHECK_THROWS_WITH(F::simplified_dropconnect(x, W, {}, 0.5, true, ops::ones({4, 3})),
                      Catch::Contains("simplified_dropconnect: Expect: mask.shape == (2, 4, 3)"));
    CHECK_THROWS_AS(F::simplified_dropconnect(x, Variable(ops::zeros({4, 3}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::simplified_dropconnect(Variable(ops::zeros({2, 3}, Dtype::kInt32)), W), DtypeError);
}
