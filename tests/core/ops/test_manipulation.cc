// concatenate, stack, split, pad, tile, repeat and flip against plain-loop references:
// every dtype and layout, negative axes, 0-d and size-0 arrays, dtype promotion, errors.

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "core/error.h"
#include "core/ops/manipulation.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::gather_reference;
using rensa::testing::ravel;
using rensa::testing::unravel;
using testing::check_allclose;
using testing::kAllLayouts;
using testing::Layout;
using testing::make_array;
using testing::sample;

namespace {

Array on_other_device(const Shape& shape, Dtype dtype) {
    static std::vector<char> bytes(4096);
    auto storage = std::make_shared<Storage>(bytes.data(), 4096, Device::cuda(0), nullptr);
    return Array(storage, shape, contiguous_strides(shape, itemsize(dtype)), 0, dtype);
}

}  // namespace

TEST_CASE("concatenate: every dtype, layout and axis", "[manipulation]") {
    for (Dtype dtype : kAllDtypes) {
        for (Layout layout : kAllLayouts) {
            for (int axis : {0, 1, 2, -1, -3}) {
                INFO(dtype << " " << testing::layout_name(layout) << " axis " << axis);
                const int a = axis < 0 ? axis + 3 : axis;
                std::vector<Array> arrays;
                std::vector<std::vector<double>> values;
                std::vector<int64_t> starts{0};
                for (int64_t len : {2, 0, 3}) {  // a size-0 piece in the middle
                    Shape s{2, 3, 4};
                    s[a] = len;
                    values.push_back(sample(dtype, shape_size(s), len));
                    arrays.push_back(make_array(values.back(), s, dtype, layout));
                    starts.push_back(starts.back() + len);
                }
                Shape shape{2, 3, 4};
                shape[a] = 5;
                const Array out = ops::concatenate(arrays, axis);
                CHECK(out.dtype() == dtype);
                std::vector<double> expected;
                for (int64_t i = 0; i < shape_size(shape); ++i) {
                    std::vector<int64_t> idx = unravel(i, shape);
                    size_t k = 0;
                    while (idx[static_cast<size_t>(a)] >= starts[k + 1]) ++k;
                    idx[static_cast<size_t>(a)] -= starts[k];
                    expected.push_back(values[k][static_cast<size_t>(ravel(idx, arrays[k].shape()))]);
                }
                check_allclose(out, expected, shape, {0, 0});
            }
        }
    }
}

TEST_CASE("concatenate and stack: dtypes promote like numpy", "[manipulation]") {
    for (Dtype a : kAllDtypes) {
        for (Dtype b : kAllDtypes) {
            INFO(a << " with " << b);
            const Array x = make_array({1, 0}, {2}, a);
            const Array y = make_array({0, 1, 1}, {3}, b);
            const Array out = ops::concatenate({x, y});
            CHECK(out.dtype() == result_type(a, b));
            check_allclose(out, {1, 0, 0, 1, 1}, {5}, {0, 0});
            CHECK(ops::stack({x, y.index({Slice{1, std::nullopt, 1}})}).dtype() == result_type(a, b));
        }
    }
}

TEST_CASE("concatenate: errors", "[manipulation]") {
    const Array a = make_array(sample(Dtype::kFloat32, 6), {2, 3}, Dtype::kFloat32);
    const Array b = make_array(sample(Dtype::kFloat32, 9), {3, 3}, Dtype::kFloat32);
    REQUIRE_THROWS_WITH(ops::concatenate({a, b}, 1),
                        "concatenate: all input arrays must have the same shape except on axis 1, but array 0 has "
                        "shape (2, 3) and array 1 has shape (3, 3)");
    CHECK(ops::concatenate({a, b}, 0).shape() == Shape{5, 3});
    REQUIRE_THROWS_AS(ops::concatenate({a, b.reshape({9})}, 0), DimensionError);
    REQUIRE_THROWS_AS(ops::concatenate({}, 0), ValueError);
    REQUIRE_THROWS_AS(ops::concatenate({make_array({1}, {}, Dtype::kInt64)}, 0), DimensionError);
    REQUIRE_THROWS_AS(ops::concatenate({a, a}, 2), DimensionError);
    REQUIRE_THROWS_AS(ops::concatenate({a, a}, -3), DimensionError);
    REQUIRE_THROWS_AS(ops::concatenate({a, on_other_device({2, 3}, Dtype::kFloat32)}, 0), DeviceError);
}

TEST_CASE("stack: every dtype, layout and axis", "[manipulation]") {
    for (Dtype dtype : kAllDtypes) {
        for (Layout layout : kAllLayouts) {
            for (int axis : {0, 1, 2, -1, -3}) {
                INFO(dtype << " " << testing::layout_name(layout) << " axis " << axis);
                const int a = axis < 0 ? axis + 3 : axis;
                std::vector<std::vector<double>> values;
                std::vector<Array> arrays;
                for (int k = 0; k < 4; ++k) {
                    values.push_back(sample(dtype, 6, k));
                    arrays.push_back(make_array(values.back(), {2, 3}, dtype, layout));
                }
                Shape shape{2, 3};
                shape.insert(a, 4);
                std::vector<double> expected;
                for (int64_t i = 0; i < shape_size(shape); ++i) {
                    std::vector<int64_t> idx = unravel(i, shape);
                    const int64_t k = idx[static_cast<size_t>(a)];
                    idx.erase(idx.begin() + a);
                    expected.push_back(values[static_cast<size_t>(k)][static_cast<size_t>(ravel(idx, {2, 3}))]);
                }
                check_allclose(ops::stack(arrays, axis), expected, shape, {0, 0});
            }
        }
    }
}

TEST_CASE("stack: 0-d and size-0 arrays, errors", "[manipulation]") {
    check_allclose(ops::stack({make_array({1.5}, {}, Dtype::kFloat64), make_array({-2}, {}, Dtype::kFloat64)}),
                   {1.5, -2}, {2}, {0, 0});
    CHECK(ops::stack({make_array({}, {0, 2}, Dtype::kInt8), make_array({}, {0, 2}, Dtype::kInt8)}, 1).shape() ==
          Shape{0, 2, 2});
    const Array a = make_array(sample(Dtype::kInt32, 6), {2, 3}, Dtype::kInt32);
    REQUIRE_THROWS_WITH(ops::stack({a, a, a.transpose()}),
                        "stack: all input arrays must have the same shape, but array 0 has shape (2, 3) and array 2 "
                        "has shape (3, 2)");
    REQUIRE_THROWS_AS(ops::stack({}), ValueError);
    REQUIRE_THROWS_AS(ops::stack({a, a}, 3), DimensionError);
    REQUIRE_THROWS_AS(ops::stack({a, a}, -4), DimensionError);
    REQUIRE_THROWS_AS(ops::stack({a, on_other_device({2, 3}, Dtype::kInt32)}), DeviceError);
}

TEST_CASE("split: equal sections are views of the input", "[manipulation]") {
    for (Layout layout : kAllLayouts) {
        for (int axis : {0, 1, -1, -2}) {
            INFO(testing::layout_name(layout) << " axis " << axis);
            const int a = axis < 0 ? axis + 2 : axis;
            const std::vector<double> values = sample(Dtype::kFloat32, 24);
            const Array x = make_array(values, {6, 4}, Dtype::kFloat32, layout);
            const std::vector<Array> pieces = ops::split(x, 2, axis);
            REQUIRE(pieces.size() == 2);
            const int64_t len = x.shape()[a] / 2;
            for (int64_t k = 0; k < 2; ++k) {
                Shape shape = x.shape();
                shape[a] = len;
                check_allclose(pieces[static_cast<size_t>(k)],
                               gather_reference(values, {6, 4}, shape,
                                                [&](std::vector<int64_t> i) {
                                                    i[static_cast<size_t>(a)] += k * len;
                                                    return i;
                                                }),
                               shape, {0, 0});
            }
            pieces[1].fill(100);  // the pieces alias x
            CHECK(x.index({-1, -1}).item<double>() == 100);
        }
    }
    CHECK(ops::split(make_array({}, {0, 3}, Dtype::kInt8), 3).size() == 3);
    CHECK(ops::split(make_array({}, {0, 3}, Dtype::kInt8), 3)[2].shape() == Shape{0, 3});
}

TEST_CASE("split: at indices with numpy's array_split slicing", "[manipulation]") {
    const std::vector<double> values = sample(Dtype::kInt64, 14);
    const Array x = make_array(values, {2, 7}, Dtype::kInt64, Layout::kTransposed);
    // (indices, expected [start, stop) of every piece along axis 1 of length 7)
    const std::vector<std::pair<std::vector<int64_t>, std::vector<std::pair<int64_t, int64_t>>>> cases{
        {{2, 5}, {{0, 2}, {2, 5}, {5, 7}}}, {{-2}, {{0, 5}, {5, 7}}}, {{3, 10}, {{0, 3}, {3, 7}, {7, 7}}},
        {{4, 2}, {{0, 4}, {4, 4}, {2, 7}}}, {{}, {{0, 7}}},           {{0, 0, 7}, {{0, 0}, {0, 0}, {0, 7}, {7, 7}}},
    };
    for (const auto& [indices, ranges] : cases) {
        for (int axis : {1, -1}) {
            const std::vector<Array> pieces = ops::split(x, indices, axis);
            REQUIRE(pieces.size() == ranges.size());
            for (size_t k = 0; k < ranges.size(); ++k) {
                const auto [start, stop] = ranges[k];
                INFO("piece " << k << " [" << start << ", " << stop << ")");
                check_allclose(pieces[k],
                               gather_reference(values, {2, 7}, {2, stop - start},
                                                [&](auto i) {
                                                    i[1] += start;
                                                    return i;
                                                }),
                               {2, stop - start}, {0, 0});
                CHECK(pieces[k].storage() == x.storage());
            }
        }
    }
}

TEST_CASE("split: errors", "[manipulation]") {
    const Array x = make_array(sample(Dtype::kFloat32, 14), {7, 2}, Dtype::kFloat32);
    REQUIRE_THROWS_AS(ops::split(x, 3, 0), ValueError);
    REQUIRE_THROWS_AS(ops::split(x, 0, 0), ValueError);
    REQUIRE_THROWS_AS(ops::split(x, -1, 1), ValueError);
    REQUIRE_THROWS_AS(ops::split(x, 2, 2), DimensionError);
    REQUIRE_THROWS_AS(ops::split(x, std::vector<int64_t>{1}, -3), DimensionError);
    REQUIRE_THROWS_AS(ops::split(make_array({1}, {}, Dtype::kFloat32), 1, 0), DimensionError);
}

TEST_CASE("pad: every dtype and layout, per-axis and broadcast widths", "[manipulation]") {
    for (Dtype dtype : kAllDtypes) {
        for (Layout layout : kAllLayouts) {
            INFO(dtype << " " << testing::layout_name(layout));
            const std::vector<double> values = sample(dtype, 6);
            const Array x = make_array(values, {2, 3}, dtype, layout);
            const std::vector<std::vector<std::pair<int64_t, int64_t>>> widths{{{1, 2}, {0, 3}}, {{2, 1}}, {{0, 0}}};
            for (const auto& w : widths) {
                const auto [b0, a0] = w[0];
                const auto [b1, a1] = w[w.size() - 1];
                const Shape shape{2 + b0 + a0, 3 + b1 + a1};
                std::vector<double> expected;
                for (int64_t r = 0; r < shape[0]; ++r) {
                    for (int64_t c = 0; c < shape[1]; ++c) {
                        const bool inside = r >= b0 && r < b0 + 2 && c >= b1 && c < b1 + 3;
                        expected.push_back(inside ? values[static_cast<size_t>((r - b0) * 3 + c - b1)] : 1.0);
                    }
                }
                const Array out = ops::pad(x, w, 1);
                CHECK(out.dtype() == dtype);
                check_allclose(out, expected, shape, {0, 0});
            }
        }
    }
}

TEST_CASE("pad: 0-d, size-0, value cast, errors", "[manipulation]") {
    check_allclose(ops::pad(make_array({3}, {}, Dtype::kInt32), {{2, 2}}), {3}, {}, {0, 0});
    check_allclose(ops::pad(make_array({}, {0, 2}, Dtype::kFloat32), {{1, 0}}, 2.5), {2.5, 2.5, 2.5}, {1, 3}, {0, 0});
    check_allclose(ops::pad(make_array({5}, {1}, Dtype::kInt8), {{1, 1}}, 2.9), {2, 5, 2}, {3}, {0, 0});
    const Array x = make_array(sample(Dtype::kFloat32, 6), {2, 3}, Dtype::kFloat32);
    REQUIRE_THROWS_AS(ops::pad(x, {{1, -1}}), ValueError);
    REQUIRE_THROWS_AS(ops::pad(x, {{0, 0}, {-2, 0}}), ValueError);
    REQUIRE_THROWS_AS(ops::pad(x, {{1, 1}, {1, 1}, {1, 1}}), ValueError);
    REQUIRE_THROWS_AS(ops::pad(x, {}), ValueError);
}

TEST_CASE("tile: every dtype and layout, short and long reps", "[manipulation]") {
    const std::vector<std::vector<int64_t>> all_reps{{2, 3}, {3}, {2, 1, 2}, {1, 1}, {0, 2}, {}};
    for (Dtype dtype : kAllDtypes) {
        for (Layout layout : kAllLayouts) {
            const std::vector<double> values = sample(dtype, 6);
            const Array x = make_array(values, {2, 3}, dtype, layout);
            for (const auto& reps : all_reps) {
                INFO(dtype << " " << testing::layout_name(layout) << " reps of length " << reps.size());
                Shape shape{2, 3};
                while (shape.size() < static_cast<int>(reps.size())) shape.insert(0, 1);
                const int lead = shape.size() - static_cast<int>(reps.size());
                for (int d = lead; d < shape.size(); ++d) shape[d] *= reps[static_cast<size_t>(d - lead)];
                const Array out = ops::tile(x, reps);
                CHECK(out.storage() != x.storage());
                check_allclose(out,
                               gather_reference(values, {2, 3}, shape,
                                                [](std::vector<int64_t> i) {
                                                    i.erase(i.begin(), i.end() - 2);
                                                    return std::vector<int64_t>{i[0] % 2, i[1] % 3};
                                                }),
                               shape, {0, 0});
            }
        }
    }
}

TEST_CASE("tile: 0-d, 8-d arrays, errors", "[manipulation]") {
    check_allclose(ops::tile(make_array({4}, {}, Dtype::kInt64), {3}), {4, 4, 4}, {3}, {0, 0});
    check_allclose(ops::tile(make_array({4}, {}, Dtype::kInt64), {}), {4}, {}, {0, 0});
    const Shape shape8{2, 1, 2, 1, 2, 1, 1, 2};
    const std::vector<double> values = sample(Dtype::kFloat64, 16);
    const Array x = make_array(values, shape8, Dtype::kFloat64, Layout::kTransposed);
    const Shape tiled{4, 2, 4, 2, 4, 2, 2, 4};
    check_allclose(ops::tile(x, {2, 2, 2, 2, 2, 2, 2, 2}),
                   gather_reference(values, shape8, tiled,
                                    [&](auto i) {
                                        for (int d = 0; d < 8; ++d) i[static_cast<size_t>(d)] %= shape8[d];
                                        return i;
                                    }),
                   tiled, {0, 0});
    REQUIRE_THROWS_AS(ops::tile(x, {1, -1}), ValueError);
}

TEST_CASE("repeat: a count for all, every dtype, layout and axis", "[manipulation]") {
    for (Dtype dtype : kAllDtypes) {
        for (Layout layout : kAllLayouts) {
            const std::vector<double> values = sample(dtype, 6);
            const Array x = make_array(values, {2, 3}, dtype, layout);
            for (int axis : {0, 1, -1}) {
                INFO(dtype << " " << testing::layout_name(layout) << " axis " << axis);
                const int a = axis < 0 ? axis + 2 : axis;
                Shape shape{2, 3};
                shape[a] *= 3;
                check_allclose(ops::repeat(x, 3, axis),
                               gather_reference(values, {2, 3}, shape,
                                                [&](auto i) {
                                                    i[static_cast<size_t>(a)] /= 3;
                                                    return i;
                                                }),
                               shape, {0, 0});
            }
            check_allclose(ops::repeat(x, 2),
                           gather_reference(values, {6}, {12},
                                            [](auto i) {
                                                i[0] /= 2;
                                                return i;
                                            }),
                           {12}, {0, 0});
            CHECK(ops::repeat(x, 0, 1).shape() == Shape{2, 0});
        }
    }
}

TEST_CASE("repeat: a count per element", "[manipulation]") {
    for (Layout layout : kAllLayouts) {
        INFO(testing::layout_name(layout));
        const std::vector<double> values = sample(Dtype::kBFloat16, 6);
        const Array x = make_array(values, {2, 3}, Dtype::kBFloat16, layout);
        const std::vector<int64_t> counts{2, 0, 3};
        const std::vector<int64_t> source_col{0, 0, 2, 2, 2};
        check_allclose(ops::repeat(x, counts, -1),
                       gather_reference(values, {2, 3}, {2, 5},
                                        [&](auto i) {
                                            i[1] = source_col[static_cast<size_t>(i[1])];
                                            return i;
                                        }),
                       {2, 5}, {0, 0});
        check_allclose(ops::repeat(x, std::vector<int64_t>{2}, 0), ops::repeat(x, 2, 0), {0, 0});
        const std::vector<int64_t> flat_counts{1, 0, 0, 2, 0, 1};
        check_allclose(ops::repeat(x, flat_counts), {values[0], values[3], values[3], values[5]}, {4}, {0, 0});
    }
    check_allclose(ops::repeat(make_array({7}, {}, Dtype::kInt8), std::vector<int64_t>{3}), {7, 7, 7}, {3}, {0, 0});
}

TEST_CASE("repeat: errors", "[manipulation]") {
    const Array x = make_array(sample(Dtype::kFloat32, 6), {2, 3}, Dtype::kFloat32);
    REQUIRE_THROWS_AS(ops::repeat(x, -1, 0), ValueError);
    REQUIRE_THROWS_AS(ops::repeat(x, std::vector<int64_t>{1, -1}, 0), ValueError);
    REQUIRE_THROWS_AS(ops::repeat(x, std::vector<int64_t>{1, 2}, 1), ValueError);
    REQUIRE_THROWS_AS(ops::repeat(x, std::vector<int64_t>{1, 2, 3}), ValueError);  // flattened length 6
    REQUIRE_THROWS_AS(ops::repeat(x, 2, 2), DimensionError);
    REQUIRE_THROWS_AS(ops::repeat(x, std::vector<int64_t>{1, 1}, -3), DimensionError);
}

TEST_CASE("flip: views with negative strides over every layout", "[manipulation]") {
    const Shape shape{2, 3, 4};
    const std::vector<std::optional<Axes>> all_axes{std::nullopt, Axes{0}, Axes{-1}, Axes{2, 0}, Axes{}};
    for (Layout layout : kAllLayouts) {
        const std::vector<double> values = sample(Dtype::kInt32, 24);
        const Array x = make_array(values, shape, Dtype::kInt32, layout);
        for (const auto& axes : all_axes) {
            INFO(testing::layout_name(layout) << " axes " << (axes ? axes->size() : -1));
            bool flipped[3] = {!axes, !axes, !axes};
            if (axes) {
                for (int a : *axes) flipped[a < 0 ? a + 3 : a] = true;
            }
            const Array out = ops::flip(x, axes);
            CHECK(out.storage() == x.storage());
            for (int d = 0; d < 3; ++d) CHECK((out.strides()[d] == -x.strides()[d]) == flipped[d]);
            check_allclose(out,
                           gather_reference(values, shape, shape,
                                            [&](auto i) {
                                                for (int d = 0; d < 3; ++d) {
                                                    if (flipped[d])
                                                        i[static_cast<size_t>(d)] =
                                                            shape[d] - 1 - i[static_cast<size_t>(d)];
                                                }
                                                return i;
                                            }),
                           shape, {0, 0});
        }
        ops::flip(x).index({0, 0, 0}).fill(-100);  // writes through the view land at the base's last element
        CHECK(x.index({-1, -1, -1}).item<int32_t>() == -100);
    }
    check_allclose(ops::flip(make_array({2.5}, {}, Dtype::kFloat32)), {2.5}, {}, {0, 0});
    CHECK(ops::flip(make_array({}, {0, 2}, Dtype::kFloat32), Axes{0}).shape() == Shape{0, 2});
    const Array x = make_array(sample(Dtype::kFloat32, 6), {2, 3}, Dtype::kFloat32);
    REQUIRE_THROWS_AS(ops::flip(x, Axes{2}), DimensionError);
    REQUIRE_THROWS_AS(ops::flip(x, Axes{1, -1}), DimensionError);
}
