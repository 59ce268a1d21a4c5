// The special functions of issue 23 at the edges of their domains: zeta (scipy.special.zeta's
// domain), erfcinv and arctanh. Their formulas and gradients inside the domains are the
// table rows of tests/testing/elementwise_rows.h.

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/math.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

std::vector<double> unary_values(UnaryOp op, const std::vector<double>& x) {
    return to_doubles(ops::elementwise(op, make_array(x, {int64_t(x.size())}, Dtype::kFloat64)));
}

TEST_CASE("math: zeta at the edges of its domain", "[functions][math]") {
    const std::vector<double> x{2.0, 3.0, 0.5, 1.0, 2.0, 2.5, 2.0, 4.0};
    const std::vector<double> q{1.0, 0.5, 1.0, 2.0, -1.0, -0.5, -0.5, 10.0};
    const auto n = int64_t(x.size());
    const std::vector<double> z = to_doubles(
        ops::elementwise(BinaryOp::kZeta, make_array(x, {n}, Dtype::kFloat64), make_array(q, {n}, Dtype::kFloat64)));
    constexpr double pi2 = std::numbers::pi * std::numbers::pi;
    CHECK(std::abs(z[0] - pi2 / 6) < 1e-14);
    CHECK(std::abs(z[1] - 7 * 1.2020569031595942) < 1e-13);  // zeta(3, 1/2) = 7 zeta(3)
    CHECK(std::isnan(z[2]));                                 // x < 1
    CHECK(z[3] == INFINITY);                                 // x = 1
    CHECK(z[4] == INFINITY);                                 // a pole at a non-positive integer q
    CHECK(std::isnan(z[5]));                                 // (-1/2)^-2.5 is not real
    CHECK(std::abs(z[6] - (4.0 + pi2 / 2)) < 1e-13);         // 1 / (1/2)^2 + zeta(2, 1/2)
    CHECK(std::abs(z[7] - 3.8665021738164473e-4) < 1e-18);   // mpmath.zeta(4, 10)
}

TEST_CASE("math: erfcinv and arctanh at the edges of their domains", "[functions][math]") {
    const std::vector<double> e =
        unary_values(UnaryOp::kErfcinv, {0.0, 2.0, 1.0, -0.1, 2.1, 1e-10, 2.0 - 1e-10, 1e-300});
    CHECK(e[0] == INFINITY);
    CHECK(e[1] == -INFINITY);
    CHECK(e[2] == 0.0);
    CHECK(std::isnan(e[3]));
    CHECK(std::isnan(e[4]));
    CHECK(std::abs(std::erfc(e[5]) - 1e-10) < 1e-22);  // the tail, where 1 - q would lose q
    CHECK(std::abs(e[6] + e[5]) < 1e-5);               // the mirror: 2 - q rounds in double
    CHECK(std::abs(e[7] - 26.209469960516124) < 1e-10);
    const std::vector<double> a = unary_values(UnaryOp::kArctanh, {1.0, -1.0, 2.0, 0.5});
    CHECK(a[0] == INFINITY);
    CHECK(a[1] == -INFINITY);
    CHECK(std::isnan(a[2]));
    CHECK(std::abs(a[3] - 0.5493061443340549) < 1e-15);
}

TEST_CASE("math: zeta, erfcinv and arctanh reject bad dtypes", "[functions][math]") {
    const Variable f(ops::full({2}, Scalar(2.0), Dtype::kFloat32));
    const Variable i(ops::full({2}, Scalar(int64_t{2}), Dtype::kInt32));
    const Variable b(ops::zeros({2}, Dtype::kBool));
    CHECK_THROWS_AS(F::zeta(f, i), DtypeError);
    CHECK_THROWS_WITH(F::zeta(f, i), Catch::Contains("zeta: Expect: q.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_WITH(F::zeta(b, f), Catch::Contains("zeta: Expect: x.dtype.kind in 'iuf', Actual: bool"));
    CHECK_THROWS_WITH(F::erfcinv(i), Catch::Contains("erfcinv: Expect: x.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_WITH(F::arctanh(i), Catch::Contains("arctanh: Expect: x.dtype.kind == 'f', Actual: int32"));
    // An integer exponent gives q's dtype; the exponent is not differentiated.
    const Variable y = F::zeta(i, f);
    CHECK(y.dtype() == Dtype::kFloat32);
    CHECK(std::abs(to_doubles(y.array())[0] - (std::numbers::pi * std::numbers::pi / 6 - 1.0)) < 1e-6);
}

}  // namespace
