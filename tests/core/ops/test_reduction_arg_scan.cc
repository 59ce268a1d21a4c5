// argmax, argmin and cumsum against plain-loop references: every dtype and layout, axes
// (none, negative), keepdims, ties (first index wins), NaN, 0-d and size-0 arrays, large
// arrays reaching every kernel path, integer wrap-around, thread-count independence, errors.

#include <omp.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/ops/reduction.h"
#include "tests/core/ops/reduction_samples.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::check_allclose;
using testing::kAllLayouts;
using testing::make_array;
using testing::reduction_sample;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One line of the reference: the values along `axis` through every other index fixed.
struct Lines {
    std::vector<std::vector<int64_t>> positions;  // flat positions of each line, in axis order
    Shape kept;                                   // shape with the axis set to 1
};

Lines lines_of(const Shape& shape, std::optional<int> axis) {
    Lines lines;
    if (!axis) {
        lines.positions.emplace_back();
        for (int64_t i = 0; i < shape_size(shape); ++i) lines.positions[0].push_back(i);
        lines.kept = Shape{1};
        return lines;
    }
    const int a = *axis < 0 ? *axis + shape.size() : *axis;
    int64_t inner = 1;
    for (int d = a + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t outer = shape_size(shape) / std::max<int64_t>(shape[a] * inner, 1);
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            std::vector<int64_t> line;
            for (int64_t k = 0; k < shape[a]; ++k) line.push_back((o * shape[a] + k) * inner + i);
            lines.positions.push_back(line);
        }
    }
    lines.kept = shape;
    lines.kept[a] = 1;
    return lines;
}

Shape drop_axis(const Shape& shape, std::optional<int> axis, bool keepdims) {
    if (!axis) return keepdims ? Shape(shape.size(), 1) : Shape{};
    const int a = *axis < 0 ? *axis + shape.size() : *axis;
    Shape out;
    for (int d = 0; d < shape.size(); ++d) {
        if (d != a || keepdims) out.push_back(d == a ? 1 : shape[d]);
    }
    return out;
}

// First index of the max (min) of each line; the first NaN wins.
std::vector<double> arg_reference(const std::vector<double>& values, const Lines& lines, bool is_max) {
    std::vector<double> out;
    for (const auto& line : lines.positions) {
        size_t best = 0;
        for (size_t k = 1; k < line.size(); ++k) {
            const double v = values[static_cast<size_t>(line[k])], b = values[static_cast<size_t>(line[best])];
            if (std::isnan(b)) break;
            if (std::isnan(v) || (is_max ? v > b : v < b)) best = k;
        }
        out.push_back(static_cast<double>(best));
    }
    return out;
}

std::vector<double> cumsum_reference(const std::vector<double>& values, const Lines& lines) {
    std::vector<double> out(values.size());
    for (const auto& line : lines.positions) {
        double acc = 0;
        for (const int64_t p : line) out[static_cast<size_t>(p)] = acc += values[static_cast<size_t>(p)];
    }
    return out;
}

struct AxisCase {
    Shape shape;
    std::optional<int> axis;
};

// Small cases: contiguous axis runs, contiguous kept rows and strided loops.
const std::vector<AxisCase> kCases = {
    {{2, 3, 4}, std::nullopt}, {{2, 3, 4}, 0}, {{2, 3, 4}, 1}, {{2, 3, 4}, 2}, {{2, 3, 4}, -1},
    {{2, 3, 4}, -3},           {{3, 40}, 1},   {{40, 3}, 0},   {{1, 50}, -1},  {{17}, 0},
    {{}, std::nullopt},        {{1, 1}, 1},    {{3, 1, 4}, 1},
};

// Larger cases: several blocks, segmented rows and strided loops.
const std::vector<AxisCase> kBigCases = {
    {{100003}, 0}, {{3, 9000}, 1}, {{9000, 3}, 0}, {{3, 70001}, 1}, {{600, 700}, 0}, {{4, 5000, 3}, 1},
};

void check_arg(Dtype dtype, const AxisCase& c, const std::vector<double>& values) {
    const Lines lines = lines_of(c.shape, c.axis);
    for (const auto layout : kAllLayouts) {
        const Array x = make_array(values, c.shape, dtype, layout);
        for (const bool keepdims : {false, true}) {
            INFO(dtype << " " << testing::layout_name(layout) << " shape " << c.shape << " axis "
                       << (c.axis ? *c.axis : 99) << " keepdims " << keepdims);
            const Array imax = ops::argmax(x, c.axis, keepdims), imin = ops::argmin(x, c.axis, keepdims);
            CHECK(imax.dtype() == Dtype::kInt64);
            CHECK(imin.dtype() == Dtype::kInt64);
            const Shape shape = drop_axis(c.shape, c.axis, keepdims);
            check_allclose(imax, arg_reference(values, lines, true), shape, {0, 0});
            check_allclose(imin, arg_reference(values, lines, false), shape, {0, 0});
        }
    }
}

void check_cumsum(Dtype dtype, const AxisCase& c, const std::vector<double>& values) {
    const std::vector<double> expected = cumsum_reference(values, lines_of(c.shape, c.axis));
    const Shape shape = c.axis ? c.shape : Shape{shape_size(c.shape)};
    for (const auto layout : kAllLayouts) {
        INFO(dtype << " " << testing::layout_name(layout) << " shape " << c.shape << " axis "
                   << (c.axis ? *c.axis : 99));
        const Array y = ops::cumsum(make_array(values, c.shape, dtype, layout), c.axis);
        CHECK(y.dtype() == (is_float(dtype) ? dtype : Dtype::kInt64));
        check_allclose(y, expected, shape, testing::tolerance(y.dtype()));
    }
}

}  // namespace

TEST_CASE("reduction: argmax and argmin over every dtype, layout and axis", "[reduction]") {
    for (const Dtype dtype : kAllDtypes) {
        for (const AxisCase& c : kCases) check_arg(dtype, c, reduction_sample(dtype, shape_size(c.shape)));
    }
    for (const Dtype dtype : {Dtype::kUInt8, Dtype::kInt32, Dtype::kFloat16, Dtype::kFloat32}) {
        for (const AxisCase& c : kBigCases) check_arg(dtype, c, reduction_sample(dtype, shape_size(c.shape), 2));
    }
}

TEST_CASE("reduction: argmax and argmin find the first NaN and infinities", "[reduction]") {
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const AxisCase& c : {AxisCase{{5, 40}, 1}, AxisCase{{5, 40}, 0}, AxisCase{{9000}, 0}}) {
            std::vector<double> values = reduction_sample(dtype, shape_size(c.shape));
            values[3] = kInf;
            values[5] = -kInf;
            values[47] = kNan;  // second row (axis 1) / eighth column (axis 0)
            values[87] = kNan;
            values[static_cast<size_t>(shape_size(c.shape) - 1)] = kNan;  // last block of the flat case
            check_arg(dtype, c, values);
        }
        std::vector<double> late = reduction_sample(dtype, 9000);
        late[8999] = kNan;  // only in the last block: must beat every earlier block
        check_arg(dtype, {{9000}, 0}, late);
        check_arg(dtype, {{3, 3000}, 1}, late);
    }
}

TEST_CASE("reduction: argmax and argmin errors and empty arrays", "[reduction]") {
    const Array empty = Array::empty({0, 3}, Dtype::kFloat32);
    CHECK_THROWS_AS(ops::argmax(empty), ValueError);
    CHECK_THROWS_AS(ops::argmin(empty, 0), ValueError);
    CHECK_THROWS_WITH(ops::argmax(empty, 0),
                      Catch::Contains("argmax") && Catch::Contains("empty sequence") && Catch::Contains("(0, 3)"));
    CHECK(ops::argmax(empty, 1).shape() == Shape{0});
    CHECK(ops::argmin(empty, 1, true).shape() == Shape{0, 1});
    const Array x = make_array(reduction_sample(Dtype::kFloat32, 6), {2, 3}, Dtype::kFloat32);
    CHECK_THROWS_AS(ops::argmax(x, 2), DimensionError);
    CHECK_THROWS_AS(ops::argmin(x, -3), DimensionError);
    CHECK_THROWS_WITH(ops::argmin(x, 5), Catch::Contains("argmin") && Catch::Contains("out of bounds"));
    CHECK_THROWS_AS(ops::argmax(make_array({1.0}, {}, Dtype::kFloat32), 0), DimensionError);
}

TEST_CASE("reduction: cumsum over every dtype, layout and axis", "[reduction]") {
    for (const Dtype dtype : kAllDtypes) {
        for (const AxisCase& c : kCases) check_cumsum(dtype, c, reduction_sample(dtype, shape_size(c.shape)));
    }
    for (const Dtype dtype : {Dtype::kInt8, Dtype::kInt64, Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const AxisCase& c : kBigCases) check_cumsum(dtype, c, reduction_sample(dtype, shape_size(c.shape), 1));
    }
}

TEST_CASE("reduction: cumsum of NaN, size-0 arrays, integer wrap and errors", "[reduction]") {
    check_allclose(ops::cumsum(make_array({1, kNan, 2}, {3}, Dtype::kFloat32)), {1, kNan, kNan}, {3}, {0, 0});
    CHECK(ops::cumsum(Array::empty({0}, Dtype::kFloat32)).shape() == Shape{0});
    CHECK(ops::cumsum(Array::empty({2, 0}, Dtype::kInt8), 1).shape() == Shape{2, 0});
    CHECK(ops::cumsum(Array::empty({2, 0}, Dtype::kBool)).dtype() == Dtype::kInt64);
    const int64_t big = std::numeric_limits<int64_t>::max();
    const std::vector<int64_t> wrapped =
        ops::cumsum(Array::from_vector(std::vector<int64_t>{big, 1}, {2})).to_vector<int64_t>();
    CHECK(wrapped == std::vector<int64_t>{big, std::numeric_limits<int64_t>::min()});
    // int8 input accumulates in int64: no wrap at 127.
    check_allclose(ops::cumsum(make_array({100, 100, 100}, {3}, Dtype::kInt8)), {100, 200, 300}, {3}, {0, 0});
    const Array x = make_array(reduction_sample(Dtype::kFloat32, 6), {2, 3}, Dtype::kFloat32);
    CHECK_THROWS_AS(ops::cumsum(x, 2), DimensionError);
    CHECK_THROWS_WITH(ops::cumsum(x, -3), Catch::Contains("cumsum") && Catch::Contains("out of bounds"));
}

TEST_CASE("reduction: cumsum and argmax do not depend on the thread count", "[reduction]") {
    const int threads = omp_get_max_threads();
    for (const AxisCase& c : {AxisCase{{1 << 21}, 0}, AxisCase{{3000, 700}, 0}, AxisCase{{40, 50000}, 1}}) {
        std::vector<double> values(static_cast<size_t>(shape_size(c.shape)));
        for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(double(i)) * 1000 + 1.0 / double(i + 1);
        const Array x = make_array(values, c.shape, Dtype::kFloat32);
        std::vector<std::vector<float>> sums;
        std::vector<std::vector<int64_t>> args;
        for (const int t : {1, 2, 3, 8}) {
            omp_set_num_threads(t);
            sums.push_back(ops::cumsum(x, c.axis).to_vector<float>());
            args.push_back(ops::argmax(x, c.axis).to_vector<int64_t>());
        }
        omp_set_num_threads(threads);
        INFO("shape " << c.shape);
        for (size_t i = 1; i < sums.size(); ++i) {
            REQUIRE(sums[i].size() == sums[0].size());
            CHECK(std::memcmp(sums[i].data(), sums[0].data(), sums[0].size() * sizeof(float)) == 0);
            CHECK(args[i] == args[0]);
        }
    }
}
