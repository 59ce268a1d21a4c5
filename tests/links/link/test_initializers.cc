// Initializers: values, statistics (Chainer's scales), fans, dtypes and errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "core/random.h"
#include "links/initializers.h"

namespace rensa::initializers {
namespace {

struct Stats {
    double mean, std, min, max;
};

Stats stats_of(const Array& a) {
    const std::vector<double> v = a.to_vector<double>();
    const double n = static_cast<double>(v.size());
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
    double var = 0.0;
    for (double x : v) var += (x - mean) * (x - mean);
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return {mean, std::sqrt(var / n), *lo, *hi};
}

// ~10^5 samples: the std estimate is within ~0.5% (5 sigma), the mean within 5 std / sqrt(n).
void check_normal(const Initializer& init, const Shape& shape, double expected_std) {
    rensa::seed(0);
    const Stats s = stats_of(init.generate(shape));
    const double n = static_cast<double>(shape_size(shape));
    CHECK(std::abs(s.mean) < 5.0 * expected_std / std::sqrt(n));
    CHECK(s.std == Approx(expected_std).epsilon(0.02));
}

void check_uniform(const Initializer& init, const Shape& shape, double bound) {
    rensa::seed(0);
    const Stats s = stats_of(init.generate(shape));
    const double n = static_cast<double>(shape_size(shape));
    CHECK(std::abs(s.mean) < 5.0 * bound / std::sqrt(3.0 * n));
    CHECK(s.std == Approx(bound / std::sqrt(3.0)).epsilon(0.02));
    CHECK(s.min >= -bound);
    CHECK(s.max <= bound);
    CHECK(s.max > 0.99 * bound);
}

TEST_CASE("get_fans follows Chainer for dense and convolution weights", "[links][initializers]") {
    CHECK(get_fans({4, 3}) == std::pair<double, double>{3.0, 4.0});
    CHECK(get_fans({8, 3, 5, 5}) == std::pair<double, double>{75.0, 200.0});
    CHECK_THROWS_AS(get_fans({4}), DimensionError);
}

TEST_CASE("Constant Zero One and NaN fill their value", "[links][initializers]") {
    CHECK(Constant(2.5).generate({2, 2}).to_vector<double>() == std::vector<double>(4, 2.5));
    CHECK(Zero().generate({3}).to_vector<double>() == std::vector<double>(3, 0.0));
    CHECK(One().generate({3}).to_vector<double>() == std::vector<double>(3, 1.0));
    for (double x : NaN().generate({3}).to_vector<double>()) CHECK(std::isnan(x));
    CHECK(constant(4.0)->generate({1}).item<double>() == 4.0);
    CHECK(Constant(1.0).fill_value() == 1.0);
}

TEST_CASE("an initializer's dtype decides the generated dtype and is checked", "[links][initializers]") {
    CHECK(Constant(1.0, Dtype::kFloat64).generate({2}, Dtype::kFloat32).dtype() == Dtype::kFloat64);
    CHECK(Constant(1.0).generate({2}, Dtype::kFloat16).dtype() == Dtype::kFloat16);
    CHECK(Normal().generate({2}).dtype() == Dtype::kFloat32);
    const Array a = Array::empty({2}, Dtype::kFloat32);
    CHECK_THROWS_AS(Constant(1.0, Dtype::kFloat64)(a), DtypeError);
    CHECK_THROWS_AS(HeNormal(1.0, Dtype::kFloat16)(Array::empty({2, 2}, Dtype::kFloat32)), DtypeError);
}

TEST_CASE("FromArray copies a value of the same shape", "[links][initializers]") {
    const Array value = Array::from_vector<double>({1, 2, 3, 4}, {2, 2});
    const Array out = from_array(value)->generate({2, 2});
    CHECK(out.dtype() == Dtype::kFloat32);
    CHECK(out.to_vector<double>() == std::vector<double>{1, 2, 3, 4});
    CHECK(out.storage() != value.storage());
    CHECK_THROWS_AS(FromArray(value).generate({4}), DimensionError);
}

TEST_CASE("or_default picks the initializer when set", "[links][initializers]") {
    const InitializerPtr a = constant(1.0), b = constant(2.0);
    CHECK(or_default(a, b) == a);
    CHECK(or_default(nullptr, b) == b);
}

TEST_CASE("Normal and Uniform use scale as std and bound", "[links][initializers]") {
    check_normal(Normal(), {400, 250}, 0.05);
    check_normal(Normal(2.0), {400, 250}, 2.0);
    check_uniform(Uniform(), {400, 250}, 0.05);
    check_uniform(Uniform(3.0), {400, 250}, 3.0);
    CHECK(Uniform(0.0).generate({3}).to_vector<double>() == std::vector<double>(3, 0.0));
}

TEST_CASE("LeCun initializers scale by fan_in", "[links][initializers]") {
    check_normal(LeCunNormal(), {400, 250}, std::sqrt(1.0 / 250));
    check_normal(LeCunNormal(2.0), {100, 10, 10, 10}, 2.0 * std::sqrt(1.0 / 1000));
    check_uniform(LeCunUniform(), {400, 250}, std::sqrt(3.0 / 250));
}

TEST_CASE("Glorot initializers scale by fan_in plus fan_out", "[links][initializers]") {
    check_normal(GlorotNormal(), {400, 250}, std::sqrt(2.0 / 650));
    check_uniform(GlorotUniform(0.5), {400, 250}, 0.5 * std::sqrt(6.0 / 650));
}

TEST_CASE("He initializers scale by the chosen fan", "[links][initializers]") {
    check_normal(HeNormal(), {400, 250}, std::sqrt(2.0 / 250));
    check_normal(HeNormal(1.0, std::nullopt, "fan_out"), {400, 250}, std::sqrt(2.0 / 400));
    check_uniform(HeUniform(), {400, 250}, std::sqrt(6.0 / 250));
    check_uniform(HeUniform(2.0, std::nullopt, "fan_out"), {25, 16, 5, 5}, 2.0 * std::sqrt(6.0 / 625));
    CHECK_THROWS_AS(HeNormal(1.0, std::nullopt, "fan_avg"), ValueError);
    CHECK_THROWS_WITH(HeUniform(1.0, std::nullopt, "in"), Catch::Contains("fan_option"));
}

TEST_CASE("random initializers are deterministic under rensa::seed", "[links][initializers]") {
    rensa::seed(42);
    const auto a = GlorotUniform().generate({8, 8}).to_vector<double>();
    const auto b = Orthogonal().generate({8, 8}).to_vector<double>();
    rensa::seed(42);
    CHECK(GlorotUniform().generate({8, 8}).to_vector<double>() == a);
    CHECK(Orthogonal().generate({8, 8}).to_vector<double>() == b);
    CHECK(GlorotUniform().generate({8, 8}).to_vector<double>() != a);
}

// max |M M^T - s^2 I| (rows) or |M^T M - s^2 I| (columns) of the (rows, cols) flattening.
double orthogonality_error(const Array& w, double scale) {
    const int64_t rows = w.shape()[0];
    const int64_t cols = w.size() / rows;
    const std::vector<double> m = w.to_vector<double>();
    const bool by_rows = rows <= cols;
    const int64_t count = by_rows ? rows : cols, len = by_rows ? cols : rows;
    auto at = [&](int64_t i, int64_t k) { return by_rows ? m[i * cols + k] : m[k * cols + i]; };
    double err = 0.0;
    for (int64_t i = 0; i < count; ++i) {
        for (int64_t j = 0; j < count; ++j) {
            double dot = 0.0;
            for (int64_t k = 0; k < len; ++k) dot += at(i, k) * at(j, k);
            err = std::max(err, std::abs(dot - (i == j ? scale * scale : 0.0)));
        }
    }
    return err;
}

TEST_CASE("Orthogonal gives orthonormal rows or columns times scale", "[links][initializers]") {
    rensa::seed(1);
    CHECK(orthogonality_error(Orthogonal().generate({30, 50}, Dtype::kFloat64), 1.0) < 1e-5);
    CHECK(orthogonality_error(Orthogonal().generate({50, 30}, Dtype::kFloat64), 1.0) < 1e-5);
    CHECK(orthogonality_error(Orthogonal(2.0).generate({16, 3, 3, 3}, Dtype::kFloat64), 2.0) < 1e-5);
    CHECK(orthogonality_error(Orthogonal().generate({20, 20}), 1.0) < 1e-5);  // float32
    // Not the identity or a permutation: random directions.
    const Array w = Orthogonal().generate({4, 4}, Dtype::kFloat64);
    CHECK(std::abs(w.to_vector<double>()[1]) > 1e-6);
}

TEST_CASE("Orthogonal needs at least 2 dims", "[links][initializers]") {
    CHECK_THROWS_AS(Orthogonal().generate({5}), DimensionError);
    CHECK_THROWS_WITH(Orthogonal().generate({5}), Catch::Contains("Orthogonal") && Catch::Contains("(5,)"));
    CHECK_THROWS_AS(Orthogonal().generate({0, 3}), ValueError);
}

TEST_CASE("Identity gives scale times the identity on square matrices", "[links][initializers]") {
    CHECK(Identity(2.0).generate({2, 2}).to_vector<double>() == std::vector<double>{2, 0, 0, 2});
    CHECK(Identity().generate({3, 3}, Dtype::kFloat64).to_vector<double>() ==
          std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1});
    CHECK_THROWS_AS(Identity().generate({2, 3}), DimensionError);
    CHECK_THROWS_AS(Identity().generate({2, 2, 2}), DimensionError);
}

TEST_CASE("initializers fill non-contiguous arrays in place", "[links][initializers]") {
    const Array base = Array::from_vector<float>(std::vector<float>(12, -1.0f), {3, 4});
    const Array view = base.transpose();  // (4, 3), not contiguous
    Identity(1.0)(base.index({Slice{0, 3}, Slice{0, 3}}));
    CHECK(base.to_vector<double>() == std::vector<double>{1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 1, -1});
    One()(view);
    CHECK(base.to_vector<double>() == std::vector<double>(12, 1.0));
}

}  // namespace
}  // namespace rensa::initializers
