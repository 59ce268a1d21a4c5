// softmax and log_softmax against a float64 reference computed here, over float dtypes,
// layouts, axes and sizes that take each path of the native kernel (rows, columns,
// strided), plus stability, special values and errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/softmax.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::Layout;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Naive two-pass softmax of row-major `v` of `shape` along `axis`.
std::vector<double> softmax_reference(const std::vector<double>& v, const Shape& shape, int axis, bool log) {
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[d];
    for (int d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t n = shape[axis];
    std::vector<double> out(v.size());
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
            const auto at = [&](int64_t i) { return static_cast<size_t>((o * n + i) * inner + in); };
            double m = -kInf;
            for (int64_t i = 0; i < n; ++i) m = std::max(m, v[at(i)]);
            double s = 0;
            for (int64_t i = 0; i < n; ++i) s += std::exp(v[at(i)] - m);
            for (int64_t i = 0; i < n; ++i) out[at(i)] = log ? v[at(i)] - m - std::log(s) : std::exp(v[at(i)] - m) / s;
        }
    }
    return out;
}

std::vector<double> spread_values(int64_t n, double scale) {
    std::vector<double> v = testing::iota(n);
    for (double& x : v) x = std::fmod(x * 7.3, 11.0) * scale - 2.0;
    return v;
}

void check_softmax(const Shape& shape, int axis, double scale = 0.5) {
    const std::vector<double> values = spread_values(shape_size(shape), scale);
    const int ax = axis < 0 ? axis + shape.size() : axis;
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        const Array base = testing::make_array(values, shape, dtype);
        const std::vector<double> rounded = testing::to_doubles(base);
        for (const Layout layout : testing::kAllLayouts) {
            for (const bool log : {false, true}) {
                INFO(shape << " axis " << axis << " " << dtype_name(dtype) << " " << testing::layout_name(layout)
                           << (log ? " log_softmax" : " softmax"));
                const Array x = testing::with_layout(base, layout);
                const Array y = log ? ops::log_softmax(x, axis) : ops::softmax(x, axis);
                CHECK(y.dtype() == dtype);
                testing::check_allclose(y, softmax_reference(rounded, shape, ax, log), shape,
                                        testing::tolerance(dtype));
            }
        }
    }
}

}  // namespace

TEST_CASE("softmax: rows, columns and strided paths", "[core][ops][softmax]") {
    check_softmax({3, 5}, 1);
    check_softmax({3, 5}, 0);
    check_softmax({2, 3, 4}, 1);
    check_softmax({2, 3, 20}, 1);   // columns path (inner 20)
    check_softmax({2, 4, 150}, 1);  // more columns than one block
    check_softmax({2, 37, 3}, -1);
    check_softmax({4, 70}, -1);  // rows longer than the lanes
    check_softmax({7}, 0);
    check_softmax({1, 6, 1}, 1);
    check_softmax({3, 1}, 1);       // one element per row: 1 (log: 0)
    check_softmax({70, 10}, 1);     // short rows in blocks, the last one partial
    check_softmax({2, 35, 3}, -1);  // short rows over merged kept dims
}

TEST_CASE("softmax: blocks of short rows give the scalar rows' bits", "[core][ops][softmax]") {
    // Note [Short softmax rows]: the contiguous (70, 10) input takes the row blocks, the same
    // values seen through a step-2 view the one-row-at-a-time path.
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kFloat16}) {
        const Array wide =
            ops::multiply(ops::sin(ops::arange(0.0, 1400.0, 1.0, Dtype::kFloat64)), 3.0).reshape({70, 20});
        const Array strided = wide.astype(dtype).index({Slice{}, Slice{std::nullopt, std::nullopt, 2}});
        const Array contiguous = strided.copy();
        for (const bool log : {false, true}) {
            const Array a = log ? ops::log_softmax(contiguous, 1) : ops::softmax(contiguous, 1);
            const Array b = log ? ops::log_softmax(strided, 1) : ops::softmax(strided, 1);
            CHECK(testing::to_doubles(a) == testing::to_doubles(b));
        }
    }
}

TEST_CASE("softmax: large values are stable, -inf gives 0", "[core][ops][softmax]") {
    const Array x = Array::from_vector<float>(
        {1000.f, 1001.f, 999.f, -1000.f, -std::numeric_limits<float>::infinity(), 0.f}, {2, 3});
    const std::vector<double> expected = softmax_reference(testing::to_doubles(x), {2, 3}, 1, false);
    testing::check_allclose(ops::softmax(x, 1), expected, {2, 3}, testing::tolerance(Dtype::kFloat32));
    const Array ly = ops::log_softmax(x, 1);
    const std::vector<double> got = testing::to_doubles(ly);
    CHECK(got[4] == -kInf);
    CHECK(std::abs(got[1] - (1001.0 - 1001.0 - std::log(std::exp(-1.0) + 1.0 + std::exp(-2.0)))) < 1e-5);
    const Array cols = Array::from_vector<float>(std::vector<float>(16, 500.f), {2, 8});
    const std::vector<double> c = testing::to_doubles(ops::softmax(cols, 0));
    for (const double v : c) CHECK(std::abs(v - 0.5) < 1e-6);
}

TEST_CASE("softmax: NaN propagates along its row", "[core][ops][softmax]") {
    const Array x = Array::from_vector<double>({1.0, std::nan(""), 2.0, 1.0, 2.0, 3.0}, {2, 3});
    const std::vector<double> y = testing::to_doubles(ops::softmax(x, 1));
    for (int i = 0; i < 3; ++i) CHECK(std::isnan(y[static_cast<size_t>(i)]));
    for (int i = 3; i < 6; ++i) CHECK(!std::isnan(y[static_cast<size_t>(i)]));
}

TEST_CASE("softmax: size-0 and a large input", "[core][ops][softmax]") {
    CHECK(ops::softmax(ops::zeros({0, 3}), 1).shape() == Shape{0, 3});
    CHECK(ops::log_softmax(ops::zeros({2, 0}), 1).shape() == Shape{2, 0});
    // Enough rows to run on several threads; every row sums to 1.
    const Array y = ops::softmax(ops::ones({512, 100}), 1);
    const std::vector<double> v = testing::to_doubles(y);
    for (const double e : v) REQUIRE(std::abs(e - 0.01) < 1e-6);
}

TEST_CASE("softmax: errors", "[core][ops][softmax]") {
    CHECK_THROWS_AS(ops::softmax(ops::zeros({2, 3}, Dtype::kInt32)), DtypeError);
    CHECK_THROWS_WITH(ops::log_softmax(ops::zeros({2, 3}, Dtype::kInt64)), Catch::Contains("log_softmax"));
    CHECK_THROWS_AS(ops::softmax(ops::zeros({2, 3}), 2), DimensionError);
    CHECK_THROWS_AS(ops::softmax(ops::zeros({}), 1), DimensionError);
}

TEST_CASE("softmax: float32 exp stays accurate over the whole range", "[core][ops][softmax]") {
    // Two elements per row: softmax = 1 / (1 + exp(d)) with d from -100 to 100 (exp
    // underflows, overflows and everything between); both rows and columns paths.
    std::vector<float> v;
    std::vector<double> expected;
    for (int i = -400; i <= 400; ++i) {
        const double d = i * 0.25;
        v.push_back(0.f);
        v.push_back(static_cast<float>(d));
        expected.push_back(1 / (1 + std::exp(d)));
        expected.push_back(1 / (1 + std::exp(-d)));
    }
    const auto rows = static_cast<int64_t>(v.size() / 2);
    const Array x = Array::from_vector(v, {rows, 2});
    testing::check_allclose(ops::softmax(x, 1), expected, {rows, 2}, {1e-30, 2e-6});
    testing::check_allclose(ops::softmax(x.transpose().copy(), 0).transpose(), expected, {rows, 2}, {1e-30, 2e-6});
}
