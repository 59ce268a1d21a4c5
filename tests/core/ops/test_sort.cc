// sort and argsort against a stable NaN-last reference computed here, over every dtype,
// layout and axis, plus the native sort kernel with both outputs at once.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "core/backend.h"
#include "core/ops/creation.h"
#include "core/ops/sort.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::Layout;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Values with many ties (and NaN/inf for floats) that every dtype holds exactly.
std::vector<double> sort_values(Dtype dtype, int64_t n, uint64_t seed, int64_t distinct = 7) {
    std::vector<double> v(static_cast<size_t>(n));
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& x : v) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;  // LCG
        const auto r = static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(distinct));
        x = static_cast<double>(r);
        if (dtype == Dtype::kBool) x = r % 2;
        if (is_signed(dtype)) x -= static_cast<double>(distinct / 2);
        if (is_float(dtype)) {
            x *= 0.5;
            if ((state >> 20) % 9 == 0) x = kNaN;
            if ((state >> 20) % 13 == 0) x = (state >> 40) % 2 ? kInf : -kInf;
        }
    }
    return v;
}

bool nan_last_less(double x, double y) { return !std::isnan(x) && (std::isnan(y) || x < y); }

struct SortReference {
    std::vector<double> values;
    std::vector<double> indices;
};

// Stable NaN-last sort of row-major `v` of `shape` along `axis`, by plain loops.
SortReference sort_reference(const std::vector<double>& v, const Shape& shape, int axis) {
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[d];
    for (int d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t n = shape[axis];
    SortReference r{std::vector<double>(v.size()), std::vector<double>(v.size())};
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
            const auto at = [&](int64_t i) { return static_cast<size_t>((o * n + i) * inner + in); };
            std::vector<int64_t> order(static_cast<size_t>(n));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(),
                             [&](int64_t x, int64_t y) { return nan_last_less(v[at(x)], v[at(y)]); });
            for (int64_t i = 0; i < n; ++i) {
                r.values[at(i)] = v[at(order[static_cast<size_t>(i)])];
                r.indices[at(i)] = static_cast<double>(order[static_cast<size_t>(i)]);
            }
        }
    }
    return r;
}

void check_sort(const Array& x, int axis) {
    const int ax = axis < 0 ? axis + x.ndim() : axis;
    const SortReference r = sort_reference(testing::to_doubles(x), x.shape(), ax);
    const Array values = ops::sort(x, axis), indices = ops::argsort(x, axis);
    REQUIRE(values.dtype() == x.dtype());
    REQUIRE(indices.dtype() == Dtype::kInt64);
    testing::check_allclose(values, r.values, x.shape(), {0, 0});
    testing::check_allclose(indices, r.indices, x.shape(), {0, 0});
}

}  // namespace

TEST_CASE("sort: every dtype, layout and axis", "[sort]") {
    const std::vector<std::pair<Shape, std::vector<int>>> cases = {
        {{9}, {0, -1}},
        {{4, 6}, {0, 1, -1, -2}},
        {{3, 4, 5}, {0, 1, 2, -2}},
        {{2, 1, 40}, {-1, 1}},
    };
    for (Dtype dtype : kAllDtypes) {
        for (const auto& [shape, axes] : cases) {
            for (Layout l : testing::kAllLayouts) {
                for (int axis : axes) {
                    INFO(dtype << " " << shape << " axis " << axis << " " << testing::layout_name(l));
                    const std::vector<double> v = sort_values(dtype, shape_size(shape), shape.size() * 10 + axis);
                    check_sort(testing::make_array(v, shape, dtype, l), axis);
                }
            }
        }
    }
}

TEST_CASE("sort: stable among equal keys, -0.0 and 0.0 included", "[sort]") {
    for (Dtype dtype : kAllDtypes) {
        if (dtype == Dtype::kBool) continue;
        INFO(dtype);
        const Array x = testing::make_array({3, 1, 2, 1, 3}, {5}, dtype);
        testing::check_allclose(ops::argsort(x), {1, 3, 2, 0, 4}, {5}, {0, 0});
        testing::check_allclose(ops::sort(x), {1, 1, 2, 3, 3}, {5}, {0, 0});
    }
    const Array flags = testing::make_array({1, 0, 1, 0}, {4}, Dtype::kBool);
    testing::check_allclose(ops::argsort(flags), {1, 3, 0, 2}, {4}, {0, 0});
    for (Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        INFO(dtype);
        const Array zeros = testing::make_array({0.0, -0.0, 0.0, -0.0}, {4}, dtype);
        testing::check_allclose(ops::argsort(zeros), {0, 1, 2, 3}, {4}, {0, 0});
        const std::vector<double> sorted = testing::to_doubles(ops::sort(zeros));
        CHECK_FALSE(std::signbit(sorted[0]));
        CHECK(std::signbit(sorted[1]));
        CHECK_FALSE(std::signbit(sorted[2]));
        CHECK(std::signbit(sorted[3]));
    }
}

TEST_CASE("sort: NaN sorts last, infinities in place", "[sort]") {
    for (Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (Layout l : testing::kAllLayouts) {
            INFO(dtype << " " << testing::layout_name(l));
            const Array x = testing::make_array({kNaN, 1, -kInf, kNaN, 0, kInf, -2}, {7}, dtype, l);
            testing::check_allclose(ops::sort(x), {-kInf, -2, 0, 1, kInf, kNaN, kNaN}, {7}, {0, 0});
            testing::check_allclose(ops::argsort(x), {2, 6, 4, 1, 5, 0, 3}, {7}, {0, 0});
            const Array all_nan = testing::make_array({kNaN, kNaN, kNaN}, {3}, dtype, l);
            testing::check_allclose(ops::argsort(all_nan), {0, 1, 2}, {3}, {0, 0});
        }
    }
}

TEST_CASE("sort: large arrays run in parallel and match the reference", "[sort]") {
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kInt64, Dtype::kFloat16}) {
        const Shape shape{48, 1500};
        const std::vector<double> v = sort_values(dtype, shape_size(shape), 99, 500);
        for (int axis : {0, 1}) {
            INFO(dtype << " axis " << axis);
            check_sort(testing::make_array(v, shape, dtype), axis);
        }
        INFO(dtype << " one long row");
        check_sort(testing::make_array(sort_values(dtype, 70000, 7, 3000), {70000}, dtype, Layout::kStrided), 0);
    }
}

TEST_CASE("sort: size-0 and size-1 arrays, errors", "[sort]") {
    for (const Shape& shape : {Shape{0}, Shape{0, 3}, Shape{3, 0}, Shape{1}, Shape{1, 1}}) {
        INFO(shape);
        const Array x = ops::ones(shape, Dtype::kFloat32);
        for (int axis = -shape.size(); axis < shape.size(); ++axis) check_sort(x, axis);
    }
    REQUIRE_THROWS_AS(ops::sort(ops::zeros({})), DimensionError);
    REQUIRE_THROWS_AS(ops::argsort(ops::zeros({})), DimensionError);
    REQUIRE_THROWS_AS(ops::sort(ops::zeros({2, 3}), 2), DimensionError);
    REQUIRE_THROWS_AS(ops::argsort(ops::zeros({2, 3}), -3), DimensionError);
}

TEST_CASE("sort kernel: values and indices at once, into non-contiguous outputs", "[sort]") {
    for (Dtype dtype : kAllDtypes) {
        for (Layout l : testing::kAllLayouts) {
            INFO(dtype << " " << testing::layout_name(l));
            const Shape shape{5, 6};
            const std::vector<double> v = sort_values(dtype, 30, 3);
            const Array x = testing::make_array(v, shape, dtype, l);
            const Array values = testing::with_layout(ops::zeros(shape, dtype), l);
            const Array indices = testing::with_layout(ops::zeros(shape, Dtype::kInt64), l);
            global_context().kernels(Device::native()).sort({.x = x, .axis = 0, .values = values, .indices = indices});
            const SortReference r = sort_reference(v, shape, 0);
            testing::check_allclose(values, r.values, shape, {0, 0});
            testing::check_allclose(indices, r.indices, shape, {0, 0});
        }
    }
}
