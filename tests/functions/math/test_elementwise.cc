// The elementwise op tables (Note [Elementwise tables]) on the native backend, one test row
// each (tests/testing/elementwise_rows.h): every row's formula against its float64
// reference through ops::elementwise, every F:: function's forward, gradient and double
// backprop, 0-d and size-0 inputs, dtype errors; the special functions at their edges; and no
// op without a test row.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/math.h"
#include "tests/testing/elementwise_rows.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// n values spread over [low, high) by the golden-ratio sequence (deterministic, no repeats).
std::vector<double> spread(int64_t n, double low, double high, double phase) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        v[static_cast<size_t>(i)] = low + (high - low) * std::fmod(phase + 0.6180339887498949 * double(i), 1.0);
    }
    return v;
}

void check_close(const Array& actual, const std::vector<double>& expected, double rtol, double atol) {
    const std::vector<double> a = to_doubles(actual);
    REQUIRE(a.size() == expected.size());
    for (size_t i = 0; i < a.size(); ++i) {
        INFO("element " << i << ": " << a[i] << " against " << expected[i]);
        CHECK(std::abs(a[i] - expected[i]) <= atol + rtol * std::abs(expected[i]));
    }
}

}  // namespace

TEST_CASE("elementwise tables: every op has a test row", "[functions][math]") {
    for (std::size_t i = 0; i < elementwise::UnaryTable::size; ++i) {
        const auto op = static_cast<UnaryOp>(i);
        INFO(op_name(op));
        CHECK(std::count_if(unary_test_rows().begin(), unary_test_rows().end(),
                            [op](const UnaryTestRow& r) { return r.op == op; }) == 1);
    }
    for (std::size_t i = 0; i < elementwise::BinaryTable::size; ++i) {
        const auto op = static_cast<BinaryOp>(i);
        INFO(op_name(op));
        CHECK(std::count_if(binary_test_rows().begin(), binary_test_rows().end(),
                            [op](const BinaryTestRow& r) { return r.op == op; }) == 1);
    }
}

TEST_CASE("elementwise tables: every unary formula matches its reference", "[functions][math]") {
    constexpr int64_t n = 97;
    for (const UnaryTestRow& row : unary_test_rows()) {
        INFO(op_name(row.op));
        const std::vector<double> x = spread(n, row.low, row.high, 0.1);
        for (Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
            INFO(dtype_name(dtype));
            const Array xa = make_array(x, {n}, dtype);
            const Array y = ops::elementwise(row.op, xa);
            CHECK(y.dtype() == (is_predicate(row.op) ? Dtype::kBool : dtype));
            // The reference at the input as stored (float32 rounds it).
            std::vector<double> expected;
            for (double v : to_doubles(xa)) expected.push_back(row.reference(v));
            const double tol = dtype == Dtype::kFloat64 ? 1e-12 : 2e-6;
            check_close(y, expected, tol, tol);
        }
    }
}

TEST_CASE("elementwise tables: every binary formula matches its reference", "[functions][math]") {
    constexpr int64_t n = 97;
    for (const BinaryTestRow& row : binary_test_rows()) {
        INFO(op_name(row.op));
        std::vector<double> a = spread(n, row.low, row.high, 0.1);
        if (row.integer_a) std::transform(a.begin(), a.end(), a.begin(), [](double v) { return std::floor(v); });
        const std::vector<double> b = spread(n, row.positive_b ? 0.5 : row.low, row.high, 0.35);
        std::vector<double> expected;
        for (int64_t i = 0; i < n; ++i) expected.push_back(row.reference(a[size_t(i)], b[size_t(i)]));
        const Array aa = make_array(a, {n}, Dtype::kFloat64), ba = make_array(b, {n}, Dtype::kFloat64);
        check_close(ops::elementwise(row.op, aa, ba), expected, 1e-12, 1e-12);
        // A scalar on either side gives what the broadcast array gives.
        const Scalar s(b[3]);
        const Array sa = ops::full({n}, s, Dtype::kFloat64);
        check_close(ops::elementwise(row.op, aa, s), to_doubles(ops::elementwise(row.op, aa, sa)), 0, 0);
        if (row.integer_a) {  // the order on the left: an integer scalar against the b array
            const Scalar order(a[3]);
            const Array oa = ops::full({n}, order, Dtype::kFloat64);
            check_close(ops::elementwise(row.op, order, ba), to_doubles(ops::elementwise(row.op, oa, ba)), 0, 0);
        } else {
            check_close(ops::elementwise(row.op, s, aa), to_doubles(ops::elementwise(row.op, sa, aa)), 0, 0);
        }
    }
}

TEST_CASE("math: unary elementwise functions", "[functions][math]") {
    for (const UnaryTestRow& row : unary_test_rows()) {
        if (row.function == nullptr) continue;
        for (const Shape& shape : {Shape{2, 3}, Shape{}, Shape{0, 2}}) {
            const bool check_grad = row.differentiable && shape_size(shape) > 0;
            check_function({
                .name = op_name(row.op),
                .inputs = {{.shape = shape, .values = away_from(row.kinks, row.low, row.high)}},
                .func = [&row](const Vars& xs) { return Vars{row.function(xs[0])}; },
                .reference = [&row](const Arrays& xs) { return Arrays{map(xs[0], row.reference)}; },
                .backward = check_grad,
                .double_backward = check_grad,
            });
        }
    }
}

TEST_CASE("math: binary elementwise functions", "[functions][math]") {
    for (const BinaryTestRow& row : binary_test_rows()) {
        if (row.function == nullptr) continue;
        for (const auto& [sa, sb] : {std::pair{Shape{2, 3}, Shape{2, 3}}, std::pair{Shape{2, 3}, Shape{3}}}) {
            check_function({
                .name = op_name(row.op),
                .inputs = {row.integer_a ? InputSpec{.shape = sa,
                                                     .low = row.low,
                                                     .high = row.high,
                                                     .values = integers(int64_t(row.low), int64_t(row.high)),
                                                     .dtype = Dtype::kInt32}
                                         : InputSpec{.shape = sa, .low = row.low, .high = row.high},
                           {.shape = sb, .low = row.positive_b ? 0.5 : row.low, .high = row.high}},
                .func = [&row](const Vars& xs) { return Vars{row.function(xs[0], xs[1])}; },
                .reference =
                    [&row](const Arrays& xs) {
                        const Array b = xs[1].broadcast_to(xs[0].shape());
                        const std::vector<double> va = to_doubles(xs[0]), vb = to_doubles(b);
                        std::vector<double> out;
                        for (size_t i = 0; i < va.size(); ++i) out.push_back(row.reference(va[i], vb[i]));
                        return Arrays{make_array(out, xs[0].shape(), Dtype::kFloat64)};
                    },
            });
        }
    }
}

TEST_CASE("math: rounding functions do not require grad and keep the dtype", "[functions][math]") {
    const Variable x(ops::full({3}, Scalar(-1.5), Dtype::kFloat32));
    for (auto* fn : {F::floor, F::ceil, F::fix, F::sign}) {
        const Variable y = fn(x);
        CHECK_FALSE(y.requires_grad());
        CHECK(y.dtype() == Dtype::kFloat32);
    }
    CHECK(to_doubles(F::fix(x).array()) == std::vector<double>{-1.0, -1.0, -1.0});
    CHECK(to_doubles(F::floor(x).array()) == std::vector<double>{-2.0, -2.0, -2.0});
}

TEST_CASE("math: unary functions reject integer input", "[functions][math]") {
    const Variable x(ops::zeros({2}, Dtype::kInt32));
    for (const UnaryTestRow& row : unary_test_rows()) {
        if (row.function == nullptr || !row.differentiable) continue;
        INFO(op_name(row.op));
        CHECK_THROWS_AS(row.function(x), DtypeError);
    }
    const Variable f(ops::ones({2}, Dtype::kFloat32));
    CHECK_THROWS_WITH(F::polygamma(f, f), Catch::Contains("polygamma: Expect: n.dtype.kind == 'i', Actual: float32"));
    CHECK_THROWS_AS(F::polygamma(x, x), DtypeError);
    CHECK_THROWS_WITH(F::sqrt(x), Catch::Contains("sqrt: Expect: x.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_WITH(F::fmod(Variable(ops::zeros({2}, Dtype::kFloat32)), x),
                      Catch::Contains("fmod: Expect: x.dtype == divisor.dtype, Actual: float32 != int32"));
}

TEST_CASE("math: special functions at the edges of their domains", "[functions][math]") {
    const auto values = [](UnaryOp op, const std::vector<double>& x) {
        return to_doubles(ops::elementwise(op, make_array(x, {int64_t(x.size())}, Dtype::kFloat64)));
    };
    const std::vector<double> ndtri = values(UnaryOp::kNdtri, {0.0, 1.0, -0.5, 1.5, 1e-300, 0.5});
    CHECK(ndtri[0] == -INFINITY);
    CHECK(ndtri[1] == INFINITY);
    CHECK(std::isnan(ndtri[2]));
    CHECK(std::isnan(ndtri[3]));
    CHECK(std::abs(ndtri[4] - -37.047096299361208) < 1e-10);  // far in the tail, where erfc underflows
    CHECK(ndtri[5] == 0.0);
    const std::vector<double> erfinv = values(UnaryOp::kErfinv, {1.0, -1.0, 2.0, 1e-10, 1.0 - 1e-15});
    CHECK(erfinv[0] == INFINITY);
    CHECK(erfinv[1] == -INFINITY);
    CHECK(std::isnan(erfinv[2]));
    CHECK(std::abs(erfinv[3] - 8.8622692545275801e-11) < 1e-24);  // 1 - x would lose x's digits
    const double tail = 1.0 - (1.0 - 1e-15);                      // exact: what erfc must give back near 1
    CHECK(std::abs(std::erfc(erfinv[4]) - tail) < 1e-12 * tail);
    // log_ndtr where ndtr underflows (-40) and where it rounds to 1 (10): log(ndtr(x)) gives -inf and 0.
    const std::vector<double> log_ndtr = values(UnaryOp::kLogNdtr, {-40.0, 10.0});
    CHECK(std::abs(log_ndtr[0] - -804.60844201375379) < 1e-9);
    CHECK(std::abs(log_ndtr[1] - -7.6198530241604696e-24) < 1e-35);
    const std::vector<double> digamma = values(UnaryOp::kDigamma, {1.0, -0.5, -2.0, 1e5});
    CHECK(std::abs(digamma[0] - -0.57721566490153286) < 1e-14);  // -Euler's constant
    CHECK(std::abs(digamma[1] - 0.03648997397857652) < 1e-14);   // reflection below 0
    CHECK(std::isnan(digamma[2]));                               // a pole
    CHECK(std::abs(digamma[3] - static_cast<double>(reference::digamma(1e5))) < 1e-13);
    const Array x = make_array({1.0, -1.5, 0.5}, {3}, Dtype::kFloat64);
    const auto order = [](double n) { return make_array({n, n, n}, {3}, Dtype::kFloat64); };
    const std::vector<double> trigamma = to_doubles(ops::elementwise(BinaryOp::kPolygamma, order(1), x));
    CHECK(std::abs(trigamma[0] - 1.6449340668482264) < 1e-13);  // pi^2 / 6
    CHECK(std::abs(trigamma[1] - 9.3792466449891237) < 1e-12);  // a negative x
    CHECK(std::abs(trigamma[2] - 4.9348022005446793) < 1e-13);  // pi^2 / 2
    for (double bad : {-1.0, 1.5}) {
        for (double v : to_doubles(ops::elementwise(BinaryOp::kPolygamma, order(bad), x))) CHECK(std::isnan(v));
    }
}
