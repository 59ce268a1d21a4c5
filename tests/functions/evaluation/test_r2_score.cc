// r2_score: hand-computed values, a float64 reference over random inputs, no gradient, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/evaluation.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Per column of (n, rest...) flattened to (n, m): 1 - SS_res / SS_tot, 0 where SS_tot == 0.
std::vector<double> r2_ref(const std::vector<double>& p, const std::vector<double>& t, int64_t n) {
    const size_t m = t.size() / static_cast<size_t>(n);
    std::vector<double> out;
    for (size_t j = 0; j < m; ++j) {
        double mean = 0, res = 0, tot = 0;
        for (int64_t i = 0; i < n; ++i) mean += t[i * m + j] / static_cast<double>(n);
        for (int64_t i = 0; i < n; ++i) {
            res += (t[i * m + j] - p[i * m + j]) * (t[i * m + j] - p[i * m + j]);
            tot += (t[i * m + j] - mean) * (t[i * m + j] - mean);
        }
        out.push_back(tot == 0 ? 0.0 : 1.0 - res / tot);
    }
    return out;
}

}  // namespace

TEST_CASE("r2_score: hand-computed values", "[functions][evaluation]") {
    // Column 0: SS_res = 1, SS_tot = 2 -> 0.5; column 1: constant truth (SS_tot = 0) -> 0.
    const Variable t(make_array({1, 2, 2, 2, 3, 2}, {3, 2}, Dtype::kFloat32));
    const Variable p(make_array({1, 1, 2, 3, 4, 2}, {3, 2}, Dtype::kFloat32));
    const Variable raw = F::r2_score(p, t, {}, "raw_values");
    check_allclose(raw.array(), {0.5, 0.0}, {2}, {0, 0});
    CHECK(raw.dtype() == Dtype::kFloat32);
    CHECK_FALSE(raw.requires_grad());
    const Variable avg = F::r2_score(p, t);
    check_allclose(avg.array(), {0.25}, {}, {0, 0});
    CHECK_FALSE(avg.requires_grad());
    // A perfect prediction scores 1.
    check_allclose(F::r2_score(t, t, {}, "raw_values").array(), {1.0, 0.0}, {2}, {0, 0});
}

TEST_CASE("r2_score: against a float64 reference", "[functions][evaluation]") {
    for (const Shape& shape : {Shape{7}, Shape{5, 3}, Shape{4, 2, 3}}) {
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            for (const Layout layout : kAllLayouts) {
                const int64_t size = shape_size(shape);
                const Array pa = make_array(sample(dtype, size, 1), shape, dtype, layout);
                const Array ta = make_array(sample(dtype, size, 2), shape, dtype, layout);
                const std::vector<double> ref = r2_ref(to_doubles(pa), to_doubles(ta), shape[0]);
                const Shape rest(shape.begin() + 1, shape.end());
                const Variable raw = F::r2_score(Variable(pa), Variable(ta), {}, "raw_values");
                CHECK(raw.dtype() == dtype);
                check_allclose(raw.array(), ref, rest, tolerance(dtype));
                double mean = 0;
                for (const double r : ref) mean += r / static_cast<double>(ref.size());
                check_allclose(F::r2_score(Variable(pa), Variable(ta)).array(), {mean}, {}, tolerance(dtype));
            }
        }
    }
}

TEST_CASE("r2_score: bad input is an error", "[functions][evaluation]") {
    const Variable a(ops::zeros({3, 2})), b(ops::zeros({2, 3})), c(ops::zeros({3, 2}, Dtype::kFloat64));
    CHECK_THROWS_AS(F::r2_score(a, a, a), NotImplementedError);
    CHECK_THROWS_WITH(F::r2_score(a, a, {}, "variance_weighted"),
                      Catch::Contains("r2_score: Expect: multioutput in ('uniform_average', 'raw_values')"));
    CHECK_THROWS_AS(F::r2_score(a, a, {}, "variance_weighted"), ValueError);
    CHECK_THROWS_WITH(F::r2_score(a, b), Catch::Contains("r2_score: Expect: pred.shape == true.shape"));
    CHECK_THROWS_AS(F::r2_score(a, b), DimensionError);
    CHECK_THROWS_WITH(F::r2_score(a, c), Catch::Contains("r2_score: Expect: pred.dtype == true.dtype"));
    CHECK_THROWS_AS(F::r2_score(Variable(ops::zeros({3}, Dtype::kInt32)), Variable(ops::zeros({3}, Dtype::kInt32))),
                    DtypeError);
    CHECK_THROWS_AS(F::r2_score(Variable(ops::zeros({})), Variable(ops::zeros({}))), DimensionError);
}
