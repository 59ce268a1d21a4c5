// Array's views (reshape, transpose, swapaxes, squeeze, expand_dims, broadcast_to,
// basic indexing) alias their base; copy, astype, to_device, item and allocation errors.

#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "tests/testing/testing.h"

using namespace rensa;
using Catch::Matchers::Contains;
using rensa::testing::gather_reference;
using rensa::testing::ravel;
using rensa::testing::unravel;
using testing::check_allclose;
using testing::kAllLayouts;
using testing::Layout;
using testing::make_array;

namespace {}  // namespace

TEST_CASE("views: reshape is a view when the strides allow it, else a copy", "[views]") {
    const std::vector<double> values = testing::iota(24);
    const Array x = make_array(values, {4, 6}, Dtype::kFloat32);
    const Array r = x.reshape({2, -1, 3});
    CHECK(r.shape() == Shape{2, 4, 3});
    CHECK(r.storage() == x.storage());
    check_allclose(r, values, {2, 4, 3}, {0, 0});
    r.index({1, 3, 2}).fill(-1);
    CHECK(x.index({3, 5}).item<float>() == -1);

    const Array every_other = x.index({Slice{}, Slice{std::nullopt, std::nullopt, 2}});  // one stride overall
    CHECK(every_other.reshape({-1}).storage() == x.storage());
    check_allclose(every_other.reshape({-1}), testing::iota(12, 2.0), {12}, {0, 0});
    const Array columns = x.index({Slice{}, Slice{0, 3, 1}});  // (4, 3) with gaps between rows
    const Array split_rows = columns.reshape({2, 2, 3});
    CHECK(split_rows.storage() == x.storage());
    const std::vector<double> first_columns = gather_reference(values, {4, 6}, {4, 3}, [](auto i) { return i; });
    check_allclose(split_rows, first_columns, {2, 2, 3}, {0, 0});
    const Array flat = columns.reshape({-1});
    CHECK(flat.storage() != x.storage());
    check_allclose(flat, first_columns, {12}, {0, 0});
    const Array t = x.transpose().reshape({24});
    CHECK(t.storage() != x.storage());
    check_allclose(t, x.transpose().copy().to_vector<double>(), {24}, {0, 0});

    CHECK(make_array({}, {0, 3}, Dtype::kInt8).reshape({-1, 3}).shape() == Shape{0, 3});
    CHECK(make_array({5}, {}, Dtype::kInt8).reshape({1, 1, -1}).shape() == Shape{1, 1, 1});
    CHECK(make_array({5}, {1, 1}, Dtype::kInt8).reshape({}).shape() == Shape{});
}

TEST_CASE("views: reshape errors", "[views]") {
    const Array x = make_array(testing::iota(12), {3, 4}, Dtype::kFloat32);
    REQUIRE_THROWS_AS(x.reshape({5, -1}), DimensionError);
    REQUIRE_THROWS_AS(x.reshape({5, 2}), DimensionError);
    REQUIRE_THROWS_AS(x.reshape({-1, -1}), ValueError);
    REQUIRE_THROWS_AS(x.reshape({-2, -6}), ValueError);
    REQUIRE_THROWS_AS(make_array({}, {0, 3}, Dtype::kInt8).reshape({-1, 0}), DimensionError);
}

TEST_CASE("views: transpose and swapaxes over every layout", "[views]") {
    const Shape shape{2, 3, 4};
    const std::vector<double> values = testing::iota(24, 1.0, -7.0);
    for (Layout layout : kAllLayouts) {
        INFO(testing::layout_name(layout));
        const Array x = make_array(values, shape, Dtype::kInt32, layout);
        const Array t = x.transpose();
        CHECK(t.storage() == x.storage());
        check_allclose(t,
                       gather_reference(values, shape, {4, 3, 2},
                                        [](auto i) {
                                            return std::vector<int64_t>{i[2], i[1], i[0]};
                                        }),
                       {4, 3, 2}, {0, 0});
        check_allclose(x.transpose({1, -1, 0}),
                       gather_reference(values, shape, {3, 4, 2},
                                        [](auto i) {
                                            return std::vector<int64_t>{i[2], i[0], i[1]};
                                        }),
                       {3, 4, 2}, {0, 0});
        check_allclose(x.swapaxes(0, -1), t, {0, 0});
        check_allclose(x.swapaxes(1, 1), x, {0, 0});
        t.index({3, 2, 1}).fill(1000);
        CHECK(x.index({1, 2, 3}).item<int64_t>() == 1000);
    }
    const Array x = make_array(values, shape, Dtype::kInt32);
    REQUIRE_THROWS_AS(x.transpose({0, 1}), DimensionError);
    REQUIRE_THROWS_AS(x.transpose({0, 1, 1}), DimensionError);
    REQUIRE_THROWS_AS(x.transpose({0, 1, 3}), DimensionError);
    REQUIRE_THROWS_AS(x.swapaxes(0, 3), DimensionError);
    CHECK(make_array({3}, {}, Dtype::kInt32).transpose().shape() == Shape{});
}

TEST_CASE("views: squeeze and expand_dims", "[views]") {
    const std::vector<double> values = testing::iota(6);
    const Array x = make_array(values, {1, 2, 1, 3, 1}, Dtype::kFloat64, Layout::kStrided);
    CHECK(x.squeeze().shape() == Shape{2, 3});
    CHECK(x.squeeze({0, -1}).shape() == Shape{2, 1, 3});
    check_allclose(x.squeeze(), values, {2, 3}, {0, 0});
    CHECK(x.squeeze().storage() == x.storage());
    REQUIRE_THROWS_AS(x.squeeze({1}), DimensionError);
    REQUIRE_THROWS_AS(x.squeeze({5}), DimensionError);
    REQUIRE_THROWS_AS(x.squeeze({0, 0}), DimensionError);
    CHECK(make_array({2}, {1, 1}, Dtype::kFloat32).squeeze().shape() == Shape{});

    const Array y = make_array(values, {2, 3}, Dtype::kFloat64, Layout::kTransposed);
    CHECK(y.expand_dims(0).shape() == Shape{1, 2, 3});
    CHECK(y.expand_dims(2).shape() == Shape{2, 3, 1});
    CHECK(y.expand_dims(-1).shape() == Shape{2, 3, 1});
    CHECK(y.expand_dims(-3).shape() == Shape{1, 2, 3});
    check_allclose(y.expand_dims(1), values, {2, 1, 3}, {0, 0});
    y.expand_dims(1).index({1, 0, 2}).fill(-5);
    CHECK(y.index({1, 2}).item<double>() == -5);
    REQUIRE_THROWS_AS(y.expand_dims(3), DimensionError);
    REQUIRE_THROWS_AS(y.expand_dims(-4), DimensionError);
    CHECK(make_array({2}, {}, Dtype::kFloat32).expand_dims(0).shape() == Shape{1});
}

TEST_CASE("views: broadcast_to", "[views]") {
    const std::vector<double> values{1, 2, 3};
    for (Layout layout : kAllLayouts) {
        const Array x = make_array(values, {3, 1}, Dtype::kInt64, layout);
        const Array b = x.broadcast_to({2, 3, 4});
        CHECK(b.storage() == x.storage());
        CHECK(b.strides()[0] == 0);
        CHECK(b.strides()[2] == 0);
        check_allclose(b, gather_reference(values, {3}, {2, 3, 4}, [](auto i) { return std::vector<int64_t>{i[1]}; }),
                       {2, 3, 4}, {0, 0});
    }
    const Array x = make_array(values, {3}, Dtype::kInt64);
    CHECK(make_array({7}, {}, Dtype::kInt64).broadcast_to({2, 2}).to_vector<int64_t>() == std::vector<int64_t>(4, 7));
    CHECK(x.broadcast_to({0, 3}).shape() == Shape{0, 3});
    REQUIRE_THROWS_AS(x.broadcast_to({4}), DimensionError);
    REQUIRE_THROWS_AS(x.broadcast_to({3, 2}), DimensionError);
    REQUIRE_THROWS_AS(x.broadcast_to({}), DimensionError);
    REQUIRE_THROWS_AS(make_array(values, {3, 1}, Dtype::kInt64).broadcast_to({3}), DimensionError);
}

TEST_CASE("views: index with integers, slices, NewAxis and Ellipsis", "[views]") {
    const Shape shape{4, 5, 6};
    const std::vector<double> values = testing::iota(120, 0.5);
    for (Layout layout : kAllLayouts) {
        INFO(testing::layout_name(layout));
        const Array x = make_array(values, shape, Dtype::kFloat32, layout);
        check_allclose(x.index({-1, 2}),
                       gather_reference(values, shape, {6},
                                        [](auto i) {
                                            return std::vector<int64_t>{3, 2, i[0]};
                                        }),
                       {6}, {0, 0});
        // x[1:4:2, ::-1, -2:0:-3]
        const Array s = x.index({Slice{1, 4, 2}, Slice{std::nullopt, std::nullopt, -1}, Slice{-2, 0, -3}});
        check_allclose(s,
                       gather_reference(values, shape, {2, 5, 2},
                                        [](auto i) {
                                            return std::vector<int64_t>{1 + 2 * i[0], 4 - i[1], 4 - 3 * i[2]};
                                        }),
                       {2, 5, 2}, {0, 0});
        CHECK(s.storage() == x.storage());
        // x[None, ..., None, 3] and x[..., 1:100] and x[2, -100:2]
        check_allclose(x.index({NewAxis{}, Ellipsis{}, NewAxis{}, 3}),
                       gather_reference(values, shape, {1, 4, 5, 1},
                                        [](auto i) {
                                            return std::vector<int64_t>{i[1], i[2], 3};
                                        }),
                       {1, 4, 5, 1}, {0, 0});
        CHECK(x.index({Ellipsis{}, Slice{1, 100, 1}}).shape() == Shape{4, 5, 5});
        CHECK(x.index({2, Slice{-100, 2, 1}}).shape() == Shape{2, 6});
        CHECK(x.index({Slice{3, 1, 1}}).shape() == Shape{0, 5, 6});
        CHECK(x.index({Slice{std::nullopt, std::nullopt, -2}, Ellipsis{}, 0}).shape() == Shape{2, 5});
        CHECK(x[2].shape() == Shape{5, 6});
        CHECK(x.index({1, 2, 3}).item<double>() == values[(1 * 5 + 2) * 6 + 3]);
    }
}

TEST_CASE("views: index errors", "[views]") {
    const Array x = make_array(testing::iota(12), {3, 4}, Dtype::kFloat32);
    REQUIRE_THROWS_AS(x.index({0, 0, 0}), IndexError);
    REQUIRE_THROWS_AS(x.index({Ellipsis{}, 0, 0, 0}), IndexError);
    REQUIRE_THROWS_AS(x.index({Ellipsis{}, Ellipsis{}}), IndexError);
    REQUIRE_THROWS_AS(x.index({3}), IndexError);
    REQUIRE_THROWS_AS(x.index({-4}), IndexError);
    REQUIRE_THROWS_WITH(x.index({0, 4}), Contains("index 4 is out of bounds for axis 1 with size 4"));
    REQUIRE_THROWS_AS(x.index({Slice{0, 2, 0}}), ValueError);
    REQUIRE_THROWS_AS(make_array({1}, {}, Dtype::kFloat32).index({0}), IndexError);
    CHECK(make_array({1}, {}, Dtype::kFloat32).index({NewAxis{}}).shape() == Shape{1});
}

TEST_CASE("views: writes through views reach the base, copy does not alias", "[views]") {
    for (Layout layout : kAllLayouts) {
        INFO(testing::layout_name(layout));
        std::vector<double> expected = testing::iota(12);
        const Array x = make_array(expected, {3, 4}, Dtype::kInt32, layout);
        const Array c = x.copy();
        CHECK(c.is_contiguous());
        CHECK(c.storage() != x.storage());
        x.index({Slice{}, Slice{1, std::nullopt, 2}}).fill(-1);  // x[:, 1::2] = -1
        x.index({Slice{std::nullopt, std::nullopt, -2}, 0}).assign(make_array({8, 9}, {2}, Dtype::kFloat64));
        for (int r = 0; r < 3; ++r) {
            for (int col = 1; col < 4; col += 2) expected[static_cast<size_t>(r * 4 + col)] = -1;
        }
        expected[8] = 8;  // x[::-2, 0] is x[2, 0], x[0, 0]
        expected[0] = 9;
        check_allclose(x, expected, {3, 4}, {0, 0});
        check_allclose(c, testing::iota(12), {3, 4}, {0, 0});
        const Array row = x[1];
        row.assign(row.index({Slice{std::nullopt, std::nullopt, -1}}));  // overlapping: reads before writing
        check_allclose(row, {expected[7], expected[6], expected[5], expected[4]}, {4}, {0, 0});
    }
}

TEST_CASE("astype: numpy casting", "[views]") {
    const std::vector<double> values{2.75, -2.75, 0.0, 0.5, -1.0, 100.5};  // exact in float16 and bfloat16
    const Array x = make_array(values, {6}, Dtype::kFloat64, Layout::kStrided);
    for (Dtype dtype : {Dtype::kInt8, Dtype::kInt32, Dtype::kInt64}) {
        check_allclose(x.astype(dtype), {2, -2, 0, 0, -1, 100}, {6}, {0, 0});
    }
    check_allclose(x.astype(Dtype::kBool), {1, 1, 0, 1, 1, 1}, {6}, {0, 0});
    CHECK(x.astype(Dtype::kBool).to_vector<bool>() == std::vector<bool>{true, true, false, true, true, true});
    for (Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16}) {  // exact values round-trip; 1/3 rounds
        INFO(dtype);
        check_allclose(x.astype(dtype).astype(Dtype::kFloat64), values, {6}, {0, 0});
        const double third = 1.0 / 3.0;
        const Array rounded = make_array({third}, {1}, Dtype::kFloat64).astype(dtype);
        const double back = rounded.astype(Dtype::kFloat32).item<double>();
        CHECK(back != third);
        CHECK(std::abs(back - third) <= testing::tolerance(dtype).rtol * third);
    }
    check_allclose(make_array({0, 1, 1}, {3}, Dtype::kBool).astype(Dtype::kFloat16), {0, 1, 1}, {3}, {0, 0});
    CHECK(x.astype(Dtype::kFloat64, false).storage() == x.storage());
    CHECK(x.astype(Dtype::kFloat64).storage() != x.storage());
    CHECK(x.astype(Dtype::kFloat32, false).storage() != x.storage());
}

TEST_CASE("astype: out-of-range floats to integers give numpy's results", "[views]") {
    // numpy 2.4 on x86 (astype of these float32 and float64 values; core/float_to_int.h).
    const double nan = std::nan(""), inf = INFINITY;
    const std::vector<double> values{3e9, -3e9, 300.0, -129.0, -1.0, nan, inf, -inf, 1e19, 255.9, -0.5, 2147483520.0};
    const int64_t i32_min = INT32_MIN, i64_min = INT64_MIN;
    const std::vector<std::pair<Dtype, std::vector<int64_t>>> expected{
        {Dtype::kInt8, {0, 0, 44, 127, -1, 0, 0, 0, 0, -1, 0, -128}},
        {Dtype::kUInt8, {0, 0, 44, 127, 255, 0, 0, 0, 0, 255, 0, 128}},
        {Dtype::kInt32, {i32_min, i32_min, 300, -129, -1, i32_min, i32_min, i32_min, i32_min, 255, 0, 2147483520}},
        {Dtype::kInt64,
         {3000000000, -3000000000, 300, -129, -1, i64_min, i64_min, i64_min, i64_min, 255, 0, 2147483520}},
    };
    for (const Dtype from : {Dtype::kFloat32, Dtype::kFloat64}) {
        const Array x = make_array(values, {12}, from);
        for (const auto& [to, want] : expected) {
            INFO(dtype_name(from) << " -> " << dtype_name(to));
            CHECK(x.astype(to).astype(Dtype::kInt64).to_vector<int64_t>() == want);
        }
    }
    // Half types go through float32: infinity and NaN as above.
    const Array h = make_array({inf, nan, 300.0}, {3}, Dtype::kFloat16);
    CHECK(h.astype(Dtype::kInt32).astype(Dtype::kInt64).to_vector<int64_t>() ==
          std::vector<int64_t>{i32_min, i32_min, 300});
    CHECK(h.astype(Dtype::kInt8).astype(Dtype::kInt64).to_vector<int64_t>() == std::vector<int64_t>{0, 0, 44});
}

TEST_CASE("to_device, item and to_vector", "[views]") {
    const Array x = make_array({1.5, -2.5}, {2}, Dtype::kFloat32, Layout::kOffset);
    const Array same = x.to_device(Device::native());
    CHECK(same.storage() == x.storage());
    CHECK(same.offset() == x.offset());
    CHECK(make_array({-3.75}, {}, Dtype::kFloat64).item<double>() == -3.75);
    CHECK(make_array({-3.75}, {1, 1}, Dtype::kFloat64).item<int32_t>() == -3);
    CHECK(make_array({2}, {1}, Dtype::kUInt8).item<bool>());
    CHECK(static_cast<float>(make_array({0.5}, {}, Dtype::kBFloat16).item<BFloat16>()) == 0.5f);
    REQUIRE_THROWS_AS(x.item<float>(), ValueError);
    REQUIRE_THROWS_AS(make_array({}, {0}, Dtype::kFloat32).item<float>(), ValueError);
    CHECK(x.index({Slice{std::nullopt, std::nullopt, -1}}).to_vector<float>() == std::vector<float>{-2.5f, 1.5f});
}

TEST_CASE("empty: size overflow and impossible allocations throw before anything breaks", "[views]") {
    const int64_t big = int64_t{1} << 40;
    REQUIRE_THROWS_AS(Array::empty({big, big}, Dtype::kUInt8), ValueError);
    REQUIRE_THROWS_AS(Array::empty({int64_t{1} << 31, int64_t{1} << 31}, Dtype::kFloat64), ValueError);
    REQUIRE_THROWS_AS(Array::empty({-1, 3}, Dtype::kFloat32), ValueError);
    // Representable (2^50 bytes) but beyond any machine's address space: a catchable error naming the bytes.
    REQUIRE_THROWS_AS(Array::empty({int64_t{1} << 47}, Dtype::kFloat64), OutOfMemoryError);
    REQUIRE_THROWS_WITH(Array::empty({int64_t{1} << 50}, Dtype::kUInt8), Contains("1125899906842624"));
    // The allocator still works afterwards.
    check_allclose(make_array({1, 2}, {2}, Dtype::kFloat32), {1, 2}, {2}, {0, 0});
}
