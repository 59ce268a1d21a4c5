// decorrelated_batch_normalization: forward against a float64 loop (its own Jacobi
// eigensolver), Chainer's gradient against central differences, the running statistics,
// the fixed form, the eigensolver itself, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/normalization.h"
#include "functions/normalization/detail.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Matrix = std::vector<std::vector<double>>;

// (cov)^-1/2 of a symmetric positive definite matrix by plain cyclic Jacobi on doubles.
Matrix inverse_sqrt(Matrix a) {
    const size_t n = a.size();
    Matrix v(n, std::vector<double>(n, 0.0));
    for (size_t i = 0; i < n; ++i) v[i][i] = 1;
    for (int sweep = 0; sweep < 30; ++sweep) {
        for (size_t p = 0; p < n; ++p) {
            for (size_t q = p + 1; q < n; ++q) {
                if (std::abs(a[p][q]) < 1e-300) continue;
                const double t = 0.5 * std::atan2(2 * a[p][q], a[q][q] - a[p][p]), c = std::cos(t), s = std::sin(t);
                for (size_t k = 0; k < n; ++k) {  // columns, then rows, then V's columns
                    const double x = a[k][p], y = a[k][q];
                    a[k][p] = c * x - s * y, a[k][q] = s * x + c * y;
                }
                for (size_t k = 0; k < n; ++k) {
                    const double x = a[p][k], y = a[q][k];
                    a[p][k] = c * x - s * y, a[q][k] = s * x + c * y;
                }
                for (size_t k = 0; k < n; ++k) {
                    const double x = v[k][p], y = v[k][q];
                    v[k][p] = c * x - s * y, v[k][q] = s * x + c * y;
                }
            }
        }
    }
    Matrix r(n, std::vector<double>(n, 0.0));
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            for (size_t k = 0; k < n; ++k) r[i][j] += v[i][k] * v[j][k] / std::sqrt(a[k][k]);
        }
    }
    return r;
}

// x (B, c, S), groups of C = c / groups channels over (B, S).
Array dbn_reference(const Array& x_in, int64_t groups, double eps) {
    const std::vector<double> x = to_doubles(x_in);
    const int64_t b = x_in.shape()[0], c = x_in.shape()[1], sp = x_in.shape()[2], cg = c / groups, m = b * sp;
    const auto at = [&](int64_t n, int64_t ch, int64_t s) { return static_cast<size_t>((n * c + ch) * sp + s); };
    std::vector<double> y(x.size());
    for (int64_t g = 0; g < groups; ++g) {
        std::vector<double> mean(cg, 0.0);
        for (int64_t i = 0; i < cg; ++i) {
            for (int64_t n = 0; n < b; ++n) {
                for (int64_t s = 0; s < sp; ++s) mean[i] += x[at(n, g * cg + i, s)] / static_cast<double>(m);
            }
        }
        Matrix cov(cg, std::vector<double>(cg, 0.0));
        for (int64_t i = 0; i < cg; ++i) {
            for (int64_t j = 0; j < cg; ++j) {
                for (int64_t n = 0; n < b; ++n) {
                    for (int64_t s = 0; s < sp; ++s) {
                        cov[i][j] += (x[at(n, g * cg + i, s)] - mean[i]) * (x[at(n, g * cg + j, s)] - mean[j]) / m;
                    }
                }
            }
            cov[i][i] += eps;
        }
        const Matrix p = inverse_sqrt(cov);
        for (int64_t i = 0; i < cg; ++i) {
            for (int64_t n = 0; n < b; ++n) {
                for (int64_t s = 0; s < sp; ++s) {
                    double v = 0;
                    for (int64_t j = 0; j < cg; ++j) v += p[i][j] * (x[at(n, g * cg + j, s)] - mean[j]);
                    y[at(n, g * cg + i, s)] = v;
                }
            }
        }
    }
    return f64(y, x_in.shape());
}

}  // namespace

TEST_CASE("decorrelated_batch_normalization", "[functions][normalization]") {
    for (const int64_t groups : {1, 2}) {
        check_function({
            .name = "decorrelated_batch_normalization groups " + std::to_string(groups),
            .inputs = {{.shape = {5, 4, 2}}},
            .func =
                [=](const Vars& xs) { return Vars{F::decorrelated_batch_normalization(xs[0], {.groups = groups})}; },
            .reference = [=](const Arrays& xs) { return Arrays{dbn_reference(xs[0], groups, 2e-5)}; },
            .dtypes = {Dtype::kFloat32, Dtype::kFloat64},
            .double_backward = false,  // Chainer has none
            .forward_tol = {.float32 = Tolerance{1e-3, 1e-3}},
            .backward_tol = {.float32 = Tolerance{1e-2, 1e-2}},
        });
    }
}

TEST_CASE("decorrelated_batch_normalization: symmetric_eigen", "[functions][normalization]") {
    seed(11);
    const Array r = ops::uniform({3, 5, 5}, -1, 1, Dtype::kFloat64);
    const std::vector<double> rv = to_doubles(r);
    std::vector<double> a(rv.size());  // a = r + r^T
    for (int g = 0; g < 3; ++g) {
        for (int i = 0; i < 5; ++i) {
            for (int j = 0; j < 5; ++j) a[g * 25 + i * 5 + j] = rv[g * 25 + i * 5 + j] + rv[g * 25 + j * 5 + i];
        }
    }
    const auto eig = F::detail::symmetric_eigen(Array::from_vector(a, {3, 5, 5}));
    const std::vector<double> w = to_doubles(eig.values), v = to_doubles(eig.vectors);
    for (int g = 0; g < 3; ++g) {
        for (int i = 0; i < 5; ++i) {
            for (int j = 0; j < 5; ++j) {
                double rebuilt = 0, gram = 0;
                for (int k = 0; k < 5; ++k) {
                    rebuilt += v[g * 25 + i * 5 + k] * w[g * 5 + k] * v[g * 25 + j * 5 + k];
                    gram += v[g * 25 + k * 5 + i] * v[g * 25 + k * 5 + j];
                }
                CHECK(rebuilt == Approx(a[g * 25 + i * 5 + j]).margin(1e-12));
                CHECK(gram == Approx(i == j ? 1.0 : 0.0).margin(1e-12));
            }
        }
    }
}

TEST_CASE("decorrelated_batch_normalization: running statistics and fixed form", "[functions][normalization]") {
    seed(12);
    const Array x = ops::uniform({6, 4, 3}, -1, 1, Dtype::kFloat64);
    const Array rm = ops::zeros({2, 2}, Dtype::kFloat64);
    const Array rp = ops::eye(2, std::nullopt, 0, Dtype::kFloat64).reshape({1, 2, 2}).broadcast_to({2, 2, 2}).copy();
    const Variable y = F::decorrelated_batch_normalization(
        Variable(x), {.groups = 2, .running_mean = rm, .running_projection = rp, .decay = 0.0});
    // decay 0: the statistics are the batch's (the projection scaled by m / (m - 1)); the
    // fixed form with them reproduces the training output up to that factor.
    const double adjust = 18.0 / 17.0;
    const Array p = ops::divide(rp, adjust);
    const Variable fixed = F::fixed_decorrelated_batch_normalization(Variable(x), Variable(rm), Variable(p), 2);
    const std::vector<double> a = to_doubles(y.array()), b = to_doubles(fixed.array());
    for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).margin(1e-10));
    check_function({
        .name = "fixed_decorrelated_batch_normalization",
        .inputs = {{.shape = {5, 4, 2}}, {.shape = {2, 2}}, {.shape = {2, 2, 2}}},
        .func = [](const Vars& xs) { return Vars{F::fixed_decorrelated_batch_normalization(xs[0], xs[1], xs[2], 2)}; },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> x = to_doubles(xs[0]), m = to_doubles(xs[1]), p = to_doubles(xs[2]);
                std::vector<double> y(x.size(), 0.0);
                for (int n = 0; n < 5; ++n) {
                    for (int g = 0; g < 2; ++g) {
                        for (int i = 0; i < 2; ++i) {
                            for (int s = 0; s < 2; ++s) {
                                for (int j = 0; j < 2; ++j) {
                                    y[(n * 4 + g * 2 + i) * 2 + s] +=
                                        p[g * 4 + i * 2 + j] * (x[(n * 4 + g * 2 + j) * 2 + s] - m[g * 2 + j]);
                                }
                            }
                        }
                    }
                }
                return Arrays{f64(y, {5, 4, 2})};
            },
    });
}

TEST_CASE("decorrelated_batch_normalization: errors", "[functions][normalization]") {
    const Variable x(ops::zeros({4, 6}));
    CHECK_THROWS_WITH(F::decorrelated_batch_normalization(x, {.groups = 4}),
                      Catch::Contains("decorrelated_batch_normalization: Expect: x.shape[1] % groups == 0"));
    CHECK_THROWS_AS(F::decorrelated_batch_normalization(Variable(ops::zeros({4}))), DimensionError);
    CHECK_THROWS_AS(F::decorrelated_batch_normalization(Variable(ops::zeros({4, 6}, Dtype::kInt32)), {.groups = 2}),
                    DtypeError);
    CHECK_THROWS_AS(F::decorrelated_batch_normalization(x, {.groups = 2, .running_mean = ops::zeros({3})}),
                    DimensionError);
    CHECK_THROWS_AS(
        F::fixed_decorrelated_batch_normalization(x, Variable(ops::zeros({2, 3})), Variable(ops::zeros({2, 2, 2})), 2),
        DimensionError);
}
