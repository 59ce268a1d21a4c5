// det, batch_det, inv, batch_inv, cholesky: forward against float64 host factorisations,
// gradients and double backprop, singular inputs, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <utility>

#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/array.h"
#include "functions/math.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Uniform values in [-1, 1) with `boost` added on the diagonals of (.., k, k) matrices:
// well conditioned (and, symmetrised, positive definite for boost >= k).
ValueGenerator matrices(int64_t k, double boost) {
    return [k, boost](int64_t n, uint64_t seed) {
        std::mt19937_64 rng(seed * 7919 + 11);
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        std::vector<double> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = dist(rng) + ((i % k) == (i / k) % k ? boost : 0.0);
        return v;
    };
}

using Matrix = std::vector<std::vector<double>>;

Matrix matrix_at(const std::vector<double>& v, int64_t b, int64_t k) {
    Matrix m(static_cast<size_t>(k), std::vector<double>(static_cast<size_t>(k)));
    for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < k; ++j) m[i][j] = v[static_cast<size_t>(b * k * k + i * k + j)];
    }
    return m;
}

// Gauss-Jordan with partial pivoting in double: (det, inverse).
std::pair<double, Matrix> reference_det_inv(Matrix a) {
    const size_t k = a.size();
    Matrix inv(k, std::vector<double>(k, 0.0));
    for (size_t i = 0; i < k; ++i) inv[i][i] = 1.0;
    double det = 1.0;
    for (size_t c = 0; c < k; ++c) {
        size_t p = c;
        for (size_t r = c + 1; r < k; ++r) {
            if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
        }
        if (p != c) std::swap(a[p], a[c]), std::swap(inv[p], inv[c]), det = -det;
        const double pivot = a[c][c];
        det *= pivot;
        for (size_t j = 0; j < k; ++j) a[c][j] /= pivot, inv[c][j] /= pivot;
        for (size_t r = 0; r < k; ++r) {
            if (r == c) continue;
            const double f = a[r][c];
            for (size_t j = 0; j < k; ++j) a[r][j] -= f * a[c][j], inv[r][j] -= f * inv[c][j];
        }
    }
    return {det, inv};
}

Arrays batch_reference(const Array& x, bool want_det) {
    const int64_t k = x.shape()[x.ndim() - 1], batches = x.size() / std::max<int64_t>(k * k, 1);
    const std::vector<double> v = to_doubles(x);
    std::vector<double> out;
    for (int64_t b = 0; b < batches; ++b) {
        const auto [det, inv] = reference_det_inv(matrix_at(v, b, k));
        if (want_det) out.push_back(det);
        for (size_t i = 0; !want_det && i < inv.size(); ++i) out.insert(out.end(), inv[i].begin(), inv[i].end());
    }
    Shape shape = x.shape();
    if (want_det) shape = x.ndim() == 3 ? Shape{batches} : Shape{};
    return {f64(out, shape)};
}

const DtypeTolerances kLoose{.float16 = Tolerance{5e-2, 5e-2}, .float32 = Tolerance{1e-4, 1e-4}};

}  // namespace

TEST_CASE("math: det and batch_det", "[functions][math]") {
    check_function({
        .name = "det",
        .inputs = {{.shape = {3, 3}, .values = matrices(3, 2.0)}},
        .func = [](const Vars& xs) { return Vars{F::det(xs[0])}; },
        .reference = [](const Arrays& xs) { return batch_reference(xs[0], true); },
        .forward_tol = kLoose,
        .backward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
    });
    check_function({
        .name = "batch_det",
        .inputs = {{.shape = {2, 4, 4}, .values = matrices(4, 2.0)}},
        .func = [](const Vars& xs) { return Vars{F::batch_det(xs[0])}; },
        .reference = [](const Arrays& xs) { return batch_reference(xs[0], true); },
        .forward_tol = kLoose,
        .backward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
    });
    // A row swap flips the sign; numpy's det of a singular matrix is exactly 0.
    CHECK(F::det(Variable(Array::from_vector<double>({0, 1, 1, 0}, {2, 2}))).item() == -1.0);
    CHECK(F::det(Variable(Array::from_vector<double>({1, 2, 2, 4}, {2, 2}))).item() == 0.0);
    CHECK(F::det(Variable(Array::from_vector<double>({0, 0, 0, 0}, {2, 2}))).item() == 0.0);
    CHECK(F::batch_det(Variable(ops::zeros({0, 3, 3}))).shape() == Shape{0});
    CHECK(F::batch_det(Variable(ops::zeros({2, 0, 0}))).array().to_vector<double>() == std::vector<double>{1, 1});
}

TEST_CASE("math: inv and batch_inv", "[functions][math]") {
    check_function({
        .name = "inv",
        .inputs = {{.shape = {3, 3}, .values = matrices(3, 2.0)}},
        .func = [](const Vars& xs) { return Vars{F::inv(xs[0])}; },
        .reference = [](const Arrays& xs) { return batch_reference(xs[0], false); },
        .forward_tol = kLoose,
        .backward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
    });
    check_function({
        .name = "batch_inv",
        .inputs = {{.shape = {3, 2, 2}, .values = matrices(2, 2.0)}},
        .func = [](const Vars& xs) { return Vars{F::batch_inv(xs[0])}; },
        .reference = [](const Arrays& xs) { return batch_reference(xs[0], false); },
        .forward_tol = kLoose,
        .backward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
    });
    // Pivoting: a zero in the corner is fine.
    const Variable swap(Array::from_vector<double>({0, 2, 4, 0}, {2, 2}));
    CHECK(F::inv(swap).array().to_vector<double>() == std::vector<double>{0, 0.25, 0.5, 0});
}

TEST_CASE("math: singular matrices", "[functions][math]") {
    const Variable singular(Array::from_vector<double>({1, 2, 2, 4}, {2, 2}));
    CHECK_THROWS_WITH(F::inv(singular), Catch::Contains("inv: Input has singular matrices."));
    CHECK_THROWS_AS(F::inv(singular), ValueError);
    const Variable batch(Array::from_vector<double>({1, 0, 0, 1, 0, 0, 0, 0}, {2, 2, 2}));
    CHECK_THROWS_WITH(F::batch_inv(batch), Catch::Contains("batch_inv: Input has singular matrices."));
    // det's gradient needs the inverse (Chainer's batch_inv), so it raises there too.
    const Variable y = F::det(singular);
    CHECK_THROWS_AS(y.backward(), ValueError);
}

TEST_CASE("math: cholesky", "[functions][math]") {
    // Symmetrised inside so that the numerical gradient sees symmetric perturbations only,
    // as Chainer's test does.
    const auto symmetric = [](const Variable& x) { return (x + F::transpose(x)) * 0.5; };
    check_function({
        .name = "cholesky",
        .inputs = {{.shape = {4, 4}, .values = matrices(4, 4.0)}},
        .func = [&](const Vars& xs) { return Vars{F::cholesky(symmetric(xs[0]))}; },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> v = to_doubles(xs[0]);
                const int64_t k = xs[0].shape()[0];
                std::vector<double> l(v.size(), 0.0);
                const auto a = [&](int64_t i, int64_t j) {
                    return 0.5 * (v[static_cast<size_t>(i * k + j)] + v[static_cast<size_t>(j * k + i)]);
                };
                for (int64_t j = 0; j < k; ++j) {
                    for (int64_t i = j; i < k; ++i) {
                        double s = a(i, j);
                        for (int64_t p = 0; p < j; ++p) s -= l[i * k + p] * l[j * k + p];
                        l[i * k + j] = i == j ? std::sqrt(s) : s / l[j * k + j];
                    }
                }
                return Arrays{f64(l, {k, k})};
            },
        .forward_tol = kLoose,
        .backward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
    });
    // Only the lower triangle is read (numpy.linalg.cholesky).
    const Variable lower(Array::from_vector<double>({4, 100, 2, 10}, {2, 2}));
    CHECK(F::cholesky(lower).array().to_vector<double>() == std::vector<double>{2, 0, 1, 3});
    const Variable indefinite(Array::from_vector<double>({1, 2, 2, 1}, {2, 2}));
    CHECK_THROWS_WITH(F::cholesky(indefinite), Catch::Contains("cholesky: Matrix is not positive definite"));
}

TEST_CASE("math: linear algebra errors", "[functions][math]") {
    const Variable rect(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::inv(rect), Catch::Contains("inv: Expect: a.shape[-1] == a.shape[-2], Actual: a.shape (2, 3)"));
    CHECK_THROWS_AS(F::det(rect), DimensionError);
    CHECK_THROWS_AS(F::cholesky(rect), DimensionError);
    CHECK_THROWS_AS(F::batch_inv(Variable(ops::zeros({2, 2}))), DimensionError);
    CHECK_THROWS_AS(F::batch_det(Variable(ops::zeros({2, 2}))), DimensionError);
    CHECK_THROWS_WITH(F::det(Variable(ops::zeros({2, 2}, Dtype::kInt32))), Catch::Contains("det: Expect:"));
    CHECK_THROWS_AS(F::inv(Variable(ops::zeros({2, 2}, Dtype::kInt32))), DtypeError);
}
