// sum, prod, max, min, any, all, mean, var and logsumexp against float64 plain-loop
// references: every dtype and layout, axes (none, negative, several, all, empty), keepdims,
// 0-d and size-0 arrays, NaN, integer wrap-around, errors, float32 accuracy and results
// that do not depend on the thread count. argmax/argmin/cumsum: test_reduction_arg_scan.cc.

#include <omp.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/reduction.h"
#include "tests/core/ops/reduction_samples.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::check_allclose;
using testing::kAllLayouts;
using testing::make_array;
using testing::reduction_sample;

namespace {

using Fold = std::function<double(double, double)>;
using Routine = std::function<Array(const Array&, const ops::OptionalAxes&, bool)>;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// 1, 2 or -1 (1 for unsigned): products of a few dozen stay exact in every dtype.
std::vector<double> prod_sample(Dtype dtype, int64_t n) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) {
        const bool negative = i % 7 == 3 && is_signed(dtype);
        v.push_back(dtype == Dtype::kBool ? (i % 11 != 4) : i % 5 == 1 ? 2.0 : negative ? -1.0 : 1.0);
    }
    return v;
}

std::vector<bool> reduced_mask(int ndim, const ops::OptionalAxes& axes) {
    std::vector<bool> mask(static_cast<size_t>(ndim), !axes.has_value());
    if (axes) {
        for (const int a : *axes) mask[static_cast<size_t>(a < 0 ? a + ndim : a)] = true;
    }
    return mask;
}

Shape result_shape(const Shape& shape, const ops::OptionalAxes& axes, bool keepdims) {
    const std::vector<bool> mask = reduced_mask(shape.size(), axes);
    Shape out;
    for (int d = 0; d < shape.size(); ++d) {
        if (!mask[static_cast<size_t>(d)] || keepdims) out.push_back(mask[static_cast<size_t>(d)] ? 1 : shape[d]);
    }
    return out;
}

// Folds `values` (row-major in `shape`) over `axes` with fold, from init; results in
// row-major order of the kept dims, plus the count folded into each.
std::vector<double> reference(const std::vector<double>& values, const Shape& shape, const ops::OptionalAxes& axes,
                              double init, const Fold& fold) {
    const std::vector<bool> mask = reduced_mask(shape.size(), axes);
    const Shape kept = result_shape(shape, axes, true);
    std::vector<double> out(static_cast<size_t>(shape_size(kept)), init);
    for (size_t i = 0; i < values.size(); ++i) {
        int64_t rem = static_cast<int64_t>(i), o = 0, mult = 1;
        for (int d = shape.size() - 1; d >= 0; --d) {
            if (!mask[static_cast<size_t>(d)]) o += rem % shape[d] * mult;
            mult *= kept[d];
            rem /= shape[d];
        }
        out[static_cast<size_t>(o)] = fold(out[static_cast<size_t>(o)], values[i]);
    }
    return out;
}

std::string axes_name(const ops::OptionalAxes& axes) {
    if (!axes) return "None";
    std::ostringstream os;
    os << *axes;
    return os.str();
}

int64_t count_of(const Shape& shape, const ops::OptionalAxes& axes) {
    return shape_size(shape) / std::max<int64_t>(shape_size(result_shape(shape, axes, true)), 1);
}

struct AxesCase {
    Shape shape;
    ops::OptionalAxes axes;
};

// Small shapes reaching every kernel path: contiguous runs (inner), contiguous kept rows
// (rows) and strided loops, with negative, repeated-free, unsorted and empty axis lists.
const std::vector<AxesCase> kAxesCases = {
    {{2, 3, 4}, std::nullopt},  {{2, 3, 4}, Axes{}},     {{2, 3, 4}, Axes{0}},      {{2, 3, 4}, Axes{1}},
    {{2, 3, 4}, Axes{-1}},      {{2, 3, 4}, Axes{0, 2}}, {{2, 3, 4}, Axes{-1, -3}}, {{2, 3, 4}, Axes{2, 1}},
    {{2, 3, 4}, Axes{0, 1, 2}}, {{3, 40}, Axes{1}},      {{40, 3}, Axes{0}},        {{3, 1, 20}, Axes{1, 2}},
    {{17}, std::nullopt},       {{}, std::nullopt},      {{1, 1}, Axes{0}},
};

Dtype sum_dtype(Dtype dtype) { return is_float(dtype) ? dtype : Dtype::kInt64; }

// Runs `routine` on every dtype, layout, AxesCase and keepdims, comparing with the reference.
void check_reduction(const Routine& routine, const std::function<Dtype(Dtype)>& out_dtype, double init,
                     const Fold& fold, bool use_prod_sample = false) {
    for (const Dtype dtype : kAllDtypes) {
        for (const AxesCase& c : kAxesCases) {
            const int64_t n = shape_size(c.shape);
            const std::vector<double> values = use_prod_sample ? prod_sample(dtype, n) : reduction_sample(dtype, n);
            const std::vector<double> expected = reference(values, c.shape, c.axes, init, fold);
            for (const auto layout : kAllLayouts) {
                for (const bool keepdims : {false, true}) {
                    INFO(dtype << " " << testing::layout_name(layout) << " shape " << c.shape << " axes "
                               << axes_name(c.axes) << " keepdims " << keepdims);
                    const Array y = routine(make_array(values, c.shape, dtype, layout), c.axes, keepdims);
                    CHECK(y.dtype() == out_dtype(dtype));
                    check_allclose(y, expected, result_shape(c.shape, c.axes, keepdims), testing::tolerance(y.dtype()));
                }
            }
        }
    }
}

}  // namespace

TEST_CASE("reduction: sum over every dtype, layout and axes", "[reduction]") {
    check_reduction(ops::sum, sum_dtype, 0.0, std::plus<double>());
}

TEST_CASE("reduction: prod over every dtype, layout and axes", "[reduction]") {
    check_reduction(ops::prod, sum_dtype, 1.0, std::multiplies<double>(), true);
}

TEST_CASE("reduction: max and min over every dtype, layout and axes", "[reduction]") {
    const auto same = [](Dtype d) { return d; };
    check_reduction(ops::max, same, -kInf, [](double a, double v) { return std::max(a, v); });
    check_reduction(ops::min, same, kInf, [](double a, double v) { return std::min(a, v); });
}

TEST_CASE("reduction: any and all over every dtype, layout and axes", "[reduction]") {
    const auto to_bool = [](Dtype) { return Dtype::kBool; };
    check_reduction(ops::any, to_bool, 0.0, [](double a, double v) { return double(a != 0 || v != 0); });
    check_reduction(ops::all, to_bool, 1.0, [](double a, double v) { return double(a != 0 && v != 0); });
}

TEST_CASE("reduction: mean over every dtype, layout and axes", "[reduction]") {
    const auto float_dtype = [](Dtype d) { return is_float(d) ? d : Dtype::kFloat64; };
    for (const Dtype dtype : kAllDtypes) {
        for (const AxesCase& c : kAxesCases) {
            const std::vector<double> values = reduction_sample(dtype, shape_size(c.shape));
            std::vector<double> expected = reference(values, c.shape, c.axes, 0.0, std::plus<double>());
            for (double& e : expected) e /= static_cast<double>(count_of(c.shape, c.axes));
            for (const auto layout : kAllLayouts) {
                INFO(dtype << " " << testing::layout_name(layout) << " shape " << c.shape);
                const Array y = ops::mean(make_array(values, c.shape, dtype, layout), c.axes, true);
                CHECK(y.dtype() == float_dtype(dtype));
                check_allclose(y, expected, result_shape(c.shape, c.axes, true), testing::tolerance(y.dtype()));
            }
        }
    }
}

TEST_CASE("reduction: var with ddof over every dtype, layout and axes", "[reduction]") {
    for (const Dtype dtype : kAllDtypes) {
        for (const AxesCase& c : kAxesCases) {
            const std::vector<double> values = reduction_sample(dtype, shape_size(c.shape), 3);
            const auto n = static_cast<double>(count_of(c.shape, c.axes));
            std::vector<double> means = reference(values, c.shape, c.axes, 0.0, std::plus<double>());
            for (double& m : means) m /= n;
            for (const int64_t ddof : {0, 1}) {
                // var = (sum of squares - n * mean^2) / (n - ddof), exact enough on these small values.
                std::vector<double> expected =
                    reference(values, c.shape, c.axes, 0.0, [](double a, double v) { return a + v * v; });
                for (size_t i = 0; i < expected.size(); ++i) {
                    expected[i] = (expected[i] - n * means[i] * means[i]) / std::max(n - double(ddof), 0.0);
                }
                for (const auto layout : kAllLayouts) {
                    INFO(dtype << " " << testing::layout_name(layout) << " shape " << c.shape << " ddof " << ddof);
                    const Array y = ops::var(make_array(values, c.shape, dtype, layout), c.axes, false, ddof);
                    CHECK(y.dtype() == (is_float(dtype) ? dtype : Dtype::kFloat64));
                    const testing::Tolerance tol = testing::tolerance(y.dtype());
                    check_allclose(y, expected, result_shape(c.shape, c.axes, false), {tol.atol * 10, tol.rtol * 10});
                }
            }
        }
    }
}

TEST_CASE("reduction: logsumexp over every float dtype, layout and axes", "[reduction]") {
    for (const Dtype dtype : {Dtype::kInt32, Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const AxesCase& c : kAxesCases) {
            std::vector<double> values = reduction_sample(dtype, shape_size(c.shape));
            for (double& v : values) v *= 40;  // exp(110) overflows float32: the max must be subtracted
            std::vector<double> expected =
                reference(values, c.shape, c.axes, 0.0, [](double a, double v) { return a + std::exp(v - 110.0); });
            for (double& e : expected) e = std::log(e) + 110.0;
            for (const auto layout : kAllLayouts) {
                INFO(dtype << " " << testing::layout_name(layout) << " shape " << c.shape);
                const Array y = ops::logsumexp(make_array(values, c.shape, dtype, layout), c.axes, true);
                CHECK(y.dtype() == (is_float(dtype) ? dtype : Dtype::kFloat64));
                check_allclose(y, expected, result_shape(c.shape, c.axes, true), testing::tolerance(y.dtype()));
            }
        }
    }
}

TEST_CASE("reduction: logsumexp of infinities, NaN and empty reductions", "[reduction]") {
    const Array x = make_array({-kInf, -kInf, kInf, 1.0, kNan, 2.0, 0.0, 3.0}, {4, 2}, Dtype::kFloat32);
    check_allclose(ops::logsumexp(x, Axes{1}), {-kInf, kInf, kNan, 3.0 + std::log1p(std::exp(-3.0))}, {4},
                   {1e-6, 1e-6});
    const Array empty = Array::empty({0, 3}, Dtype::kFloat64);
    check_allclose(ops::logsumexp(empty, Axes{0}), {-kInf, -kInf, -kInf}, {3}, {0, 0});
    check_allclose(ops::logsumexp(empty, std::nullopt, true), {-kInf}, {1, 1}, {0, 0});
}

TEST_CASE("reduction: 0-d and size-0 arrays", "[reduction]") {
    const Array scalar = make_array({2.5}, {}, Dtype::kFloat32);
    check_allclose(ops::sum(scalar), {2.5}, {}, {0, 0});
    check_allclose(ops::max(scalar, std::nullopt, true), {2.5}, {}, {0, 0});
    check_allclose(ops::mean(scalar), {2.5}, {}, {0, 0});
    check_allclose(ops::var(scalar), {0.0}, {}, {0, 0});
    CHECK_THROWS_AS(ops::sum(scalar, Axes{0}), DimensionError);

    for (const Dtype dtype : kAllDtypes) {
        INFO(dtype);
        const Array empty = Array::empty({2, 0, 3}, dtype);
        check_allclose(ops::sum(empty), {0.0}, {}, {0, 0});
        CHECK(ops::sum(empty).dtype() == sum_dtype(dtype));
        check_allclose(ops::sum(empty, Axes{1}), std::vector<double>(6, 0.0), {2, 3}, {0, 0});
        check_allclose(ops::prod(empty, Axes{1}, true), std::vector<double>(6, 1.0), {2, 1, 3}, {0, 0});
        check_allclose(ops::any(empty, Axes{1}), std::vector<double>(6, 0.0), {2, 3}, {0, 0});
        check_allclose(ops::all(empty, Axes{1}), std::vector<double>(6, 1.0), {2, 3}, {0, 0});
        check_allclose(ops::mean(empty, Axes{1}), std::vector<double>(6, kNan), {2, 3}, {0, 0});
        // No output needs an identity: max over a non-empty axis of an empty array is empty.
        CHECK(ops::max(empty, Axes{2}).shape() == Shape{2, 0});
        CHECK(ops::sum(empty, Axes{0, 2}).shape() == Shape{0});
    }
}

TEST_CASE("reduction: NaN propagates through max, min and sum", "[reduction]") {
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const int64_t at : {0, 17, 39, 41, 199}) {  // first, middle, last of a row, first of the next
            std::vector<double> values = reduction_sample(dtype, 200);
            values[static_cast<size_t>(at)] = kNan;
            for (const auto layout : kAllLayouts) {
                INFO(dtype << " " << testing::layout_name(layout) << " NaN at " << at);
                const Array x = make_array(values, {5, 40}, dtype, layout);
                CHECK(std::isnan(ops::max(x).item<double>()));
                CHECK(std::isnan(ops::min(x).item<double>()));
                CHECK(std::isnan(ops::sum(x).item<double>()));
                const std::vector<double> rows = ops::max(x, Axes{1}).to_vector<double>();
                const std::vector<double> cols = ops::min(x, Axes{0}).to_vector<double>();
                for (int64_t i = 0; i < 5; ++i) CHECK(std::isnan(rows[static_cast<size_t>(i)]) == (at / 40 == i));
                for (int64_t j = 0; j < 40; ++j) CHECK(std::isnan(cols[static_cast<size_t>(j)]) == (at % 40 == j));
            }
        }
        // NaN is truthy, as in numpy.
        const Array zeros_and_nan = make_array({0.0, kNan, 0.0}, {3}, dtype);
        CHECK(ops::any(zeros_and_nan).item<bool>());
        CHECK_FALSE(ops::all(zeros_and_nan).item<bool>());
        CHECK(ops::all(make_array({kNan, 1.0}, {2}, dtype)).item<bool>());
    }
}

TEST_CASE("reduction: integer sums and products wrap like int64", "[reduction]") {
    const int64_t big = std::numeric_limits<int64_t>::max();
    const Array x = Array::from_vector(std::vector<int64_t>{big, 1, 2}, {3});
    CHECK(ops::sum(x).item<int64_t>() == std::numeric_limits<int64_t>::min() + 2);
    const Array p = Array::from_vector(std::vector<int64_t>{int64_t{1} << 62, 4, 3}, {3});
    CHECK(ops::prod(p).item<int64_t>() == 0);
    const Array q = Array::from_vector(std::vector<int64_t>{int64_t{1} << 32, (int64_t{1} << 32) + 1}, {2});
    CHECK(ops::prod(q).item<int64_t>() == int64_t{1} << 32);  // 2^64 + 2^32 wraps to 2^32
    // Narrow integers and bools sum in int64: no wrap at 127 / 255, bools count.
    const Array i8 = make_array({100, 100, 100}, {3}, Dtype::kInt8);
    CHECK(ops::sum(i8).item<int64_t>() == 300);
    CHECK(ops::sum(make_array({250, 250}, {2}, Dtype::kUInt8)).item<int64_t>() == 500);
    CHECK(ops::sum(make_array({1, 0, 1, 1}, {4}, Dtype::kBool)).item<int64_t>() == 3);
    CHECK(ops::prod(make_array({-100, 100}, {2}, Dtype::kInt8)).item<int64_t>() == -10000);
}

TEST_CASE("reduction: bad axes and empty max/min throw", "[reduction]") {
    const Array x = make_array(reduction_sample(Dtype::kFloat32, 24), {2, 3, 4}, Dtype::kFloat32);
    const std::vector<Routine> routines = {ops::sum, ops::prod, ops::max,  ops::min,
                                           ops::any, ops::all,  ops::mean, ops::logsumexp};
    for (const Routine& routine : routines) {
        CHECK_THROWS_AS(routine(x, Axes{3}, false), DimensionError);
        CHECK_THROWS_AS(routine(x, Axes{-4}, false), DimensionError);
        CHECK_THROWS_AS(routine(x, Axes{0, 0}, false), DimensionError);
        CHECK_THROWS_AS(routine(x, Axes{1, -2}, false), DimensionError);
    }
    CHECK_THROWS_AS(ops::var(x, Axes{5}), DimensionError);
    CHECK_THROWS_WITH(ops::sum(x, Axes{2, -1}), Catch::Contains("sum") && Catch::Contains("repeated axis"));
    CHECK_THROWS_WITH(ops::mean(x, Axes{3}), Catch::Contains("mean") && Catch::Contains("out of bounds"));

    const Array empty = Array::empty({0, 3}, Dtype::kFloat32);
    CHECK_THROWS_AS(ops::max(empty), ValueError);
    CHECK_THROWS_AS(ops::min(empty, Axes{0}), ValueError);
    CHECK_THROWS_WITH(
        ops::max(empty, Axes{0}),
        Catch::Contains("max: zero-size array to reduction operation maximum") && Catch::Contains("(0, 3)"));
    CHECK_THROWS_WITH(ops::min(empty), Catch::Contains("min: zero-size array to reduction operation minimum"));
}

TEST_CASE("reduction: large reductions reach every block and segment path", "[reduction]") {
    struct Big {
        Shape shape;
        Axes axes;
    };
    // Inner runs of several blocks, rows with few columns (segmented), wide rows, strided.
    const std::vector<Big> cases = {{{100003}, {0}},      {{37, 4100}, {1}},      {{37, 4100}, {0}},
                                    {{37, 4100}, {0, 1}}, {{70001, 3}, {0}},      {{3, 70001}, {0}},
                                    {{3, 70001}, {1}},    {{9, 8, 1500}, {0, 2}}, {{2, 40000, 2}, {1}}};
    for (const Dtype dtype : {Dtype::kInt64, Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const Big& c : cases) {
            const std::vector<double> values = reduction_sample(dtype, shape_size(c.shape), 1);
            const std::vector<double> sums = reference(values, c.shape, c.axes, 0.0, std::plus<double>());
            const std::vector<double> maxs =
                reference(values, c.shape, c.axes, -kInf, [](double a, double v) { return std::max(a, v); });
            for (const auto layout : kAllLayouts) {
                INFO(dtype << " " << testing::layout_name(layout) << " shape " << c.shape << " axes " << c.axes);
                const Array x = make_array(values, c.shape, dtype, layout);
                const Shape shape = result_shape(c.shape, c.axes, false);
                check_allclose(ops::sum(x, c.axes), sums, shape, testing::tolerance(sum_dtype(dtype)));
                check_allclose(ops::max(x, c.axes), maxs, shape, {0, 0});
            }
        }
    }
}

TEST_CASE("reduction: float32 sum of 10M elements is accurate", "[reduction]") {
    const int64_t n = 10'000'000;
    const Array x = ops::full({n}, 0.1, Dtype::kFloat32);
    const double expected = static_cast<double>(n) * static_cast<double>(0.1f);
    CHECK(std::abs(ops::sum(x).item<double>() - expected) <= 1e-6 * expected);
    CHECK(std::abs(ops::mean(x).item<double>() - double(0.1f)) <= 1e-6 * 0.1);
    // The same through the rows path: 10M rows of 2 columns, summed over the rows.
    const Array rows = ops::full({n / 2, 2}, 0.1, Dtype::kFloat32);
    for (const double s : ops::sum(rows, Axes{0}).to_vector<double>())
        CHECK(std::abs(s - expected / 2) <= 5e-7 * expected);
}

TEST_CASE("reduction: float results do not depend on the thread count", "[reduction]") {
    struct Case {
        Shape shape;
        Axes axes;
        testing::Layout layout;
    };
    const std::vector<Case> cases = {
        {{1 << 22}, {0}, testing::Layout::kContiguous},    {{1000, 1001}, {0}, testing::Layout::kContiguous},
        {{1000, 1001}, {1}, testing::Layout::kContiguous}, {{300001, 3}, {0}, testing::Layout::kContiguous},
        {{3, 300001}, {1}, testing::Layout::kStrided},     {{500, 999}, {0, 1}, testing::Layout::kTransposed}};
    const int threads = omp_get_max_threads();
    for (const Case& c : cases) {
        std::vector<double> values(static_cast<size_t>(shape_size(c.shape)));
        for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(double(i)) * 1000 + 1.0 / double(i + 1);
        const Array x = make_array(values, c.shape, Dtype::kFloat32, c.layout);
        std::vector<std::vector<float>> results;
        for (const int t : {1, 2, 3, 8}) {
            omp_set_num_threads(t);
            results.push_back(ops::sum(x, c.axes).to_vector<float>());
        }
        omp_set_num_threads(threads);
        INFO("shape " << c.shape << " axes " << c.axes);
        for (const auto& r : results) {
            REQUIRE(r.size() == results[0].size());
            CHECK(std::memcmp(r.data(), results[0].data(), r.size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("reduction: zero-stride (broadcast) and negative-stride (flipped) inputs", "[reduction]") {
    const Slice reversed{std::nullopt, std::nullopt, -1};
    const std::vector<ops::OptionalAxes> axes_sets = {std::nullopt, Axes{0}, Axes{1}, Axes{-1, 0}};
    for (const Dtype dtype : {Dtype::kInt32, Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        // Flipped: x[::-1, ::-1] of a (6, 40) array holds values[239 - i] at flat position i.
        const std::vector<double> values = reduction_sample(dtype, 240);
        const std::vector<double> flipped_values(values.rbegin(), values.rend());
        const Array flipped = make_array(values, {6, 40}, dtype).index({reversed, reversed});
        // Broadcast: a (6, 1) column repeated over 40 columns, strides (item, 0).
        const std::vector<double> column = reduction_sample(dtype, 6, 4);
        std::vector<double> broadcast_values;
        for (const double v : column) broadcast_values.insert(broadcast_values.end(), 40, v);
        const Array broadcast = make_array(column, {6, 1}, dtype).broadcast_to({6, 40});
        for (const auto& axes : axes_sets) {
            INFO(dtype << " axes " << axes_name(axes));
            const Shape shape = result_shape({6, 40}, axes, false);
            const testing::Tolerance tol = testing::tolerance(sum_dtype(dtype));
            const auto max_fold = [](double a, double v) { return std::max(a, v); };
            check_allclose(ops::sum(flipped, axes), reference(flipped_values, {6, 40}, axes, 0.0, std::plus<double>()),
                           shape, tol);
            check_allclose(ops::max(flipped, axes), reference(flipped_values, {6, 40}, axes, -kInf, max_fold), shape,
                           {0, 0});
            check_allclose(ops::sum(broadcast, axes),
                           reference(broadcast_values, {6, 40}, axes, 0.0, std::plus<double>()), shape, tol);
            check_allclose(
                ops::min(broadcast, axes),
                reference(broadcast_values, {6, 40}, axes, kInf, [](double a, double v) { return std::min(a, v); }),
                shape, {0, 0});
        }
        const std::vector<int64_t> along_rows = ops::argmax(broadcast, 1).to_vector<int64_t>();
        CHECK(along_rows == std::vector<int64_t>(6, 0));  // all ties: the first index
        check_allclose(ops::cumsum(broadcast, 1), ops::cumsum(broadcast.copy(), 1));
        check_allclose(ops::cumsum(flipped, 0), ops::cumsum(flipped.copy(), 0));
        check_allclose(ops::argmin(flipped, 0), ops::argmin(flipped.copy(), 0));
    }
}
