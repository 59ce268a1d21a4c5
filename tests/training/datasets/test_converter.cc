#include <catch2/catch.hpp>

#include "core/error.h"
#include "tests/testing/testing.h"
#include "tests/training/datasets/datasets_testing.h"
#include "training/converter.h"
#include "training/datasets/datasets.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using rensa::testing::Layout;
using rensa::testing::make_array;
using rensa::training::testing::values_of;

Example tuple_example(std::vector<Array> values) { return Example{.values = std::move(values), .keys = {}}; }

}  // namespace

TEST_CASE("concat_examples stacks tuples per position", "[training][datasets]") {
    const std::vector<Example> batch{
        tuple_example({Array::from_vector<float>({1, 2, 3}, {3}), Array::from_vector<int32_t>({7}, {})}),
        tuple_example({Array::from_vector<float>({4, 5, 6}, {3}), Array::from_vector<int32_t>({8}, {})})};
    const Example out = concat_examples(batch);
    REQUIRE(out.size() == 2);
    CHECK_FALSE(out.is_dict());
    CHECK(out[0].shape() == Shape{2, 3});
    CHECK(out[0].dtype() == Dtype::kFloat32);
    CHECK(values_of(out[0]) == std::vector<double>{1, 2, 3, 4, 5, 6});
    CHECK(out[1].shape() == Shape{2});
    CHECK(out[1].dtype() == Dtype::kInt32);
    CHECK(values_of(out[1]) == std::vector<double>{7, 8});
    // The result is a copy: writing to it leaves the examples alone.
    out[0].fill(0.0);
    CHECK(values_of(batch[0][0]) == std::vector<double>{1, 2, 3});
}

TEST_CASE("concat_examples stacks dict examples per key", "[training][datasets]") {
    const datasets::DictDataset dataset{{{"x", make_array(rensa::testing::iota(8), {4, 2}, Dtype::kFloat64)},
                                         {"t", Array::from_vector<int64_t>({0, 1, 2, 3}, {4})}}};
    const Example out = concat_examples(dataset.get_examples({3, 1}));
    CHECK(out.keys == std::vector<std::string>{"x", "t"});
    CHECK(values_of(out["x"]) == std::vector<double>{6, 7, 2, 3});
    CHECK(out["x"].shape() == Shape{2, 2});
    CHECK(values_of(out["t"]) == std::vector<double>{3, 1});
}

TEST_CASE("concat_examples copies strided examples", "[training][datasets]") {
    for (const Layout layout : rensa::testing::kAllLayouts) {
        CAPTURE(rensa::testing::layout_name(layout));
        const Array a = make_array(rensa::testing::iota(6), {2, 3}, Dtype::kFloat32, layout);
        const Array b = make_array(rensa::testing::iota(6, 1.0, 10.0), {2, 3}, Dtype::kFloat32, layout);
        const Example out = concat_examples({tuple_example({a}), tuple_example({b.transpose().transpose()})});
        CHECK(out[0].shape() == Shape{2, 2, 3});
        CHECK(values_of(out[0]) == std::vector<double>{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
    }
    // Rows of a transposed dataset are strided views.
    const Array base = make_array(rensa::testing::iota(6), {2, 3}, Dtype::kFloat32);
    const datasets::TupleDataset dataset{{base.transpose()}};
    const Example out = concat_examples(dataset.get_examples({2, 0}));
    CHECK(values_of(out[0]) == std::vector<double>{2, 5, 0, 3});
}

TEST_CASE("concat_examples pads to the largest shape per axis", "[training][datasets]") {
    const std::vector<Example> batch{
        tuple_example({Array::from_vector<float>({1, 2}, {1, 2}), Array::from_vector<int32_t>({5}, {1})}),
        tuple_example({Array::from_vector<float>({3, 4, 5}, {3, 1}), Array::from_vector<int32_t>({6, 7}, {2})})};
    const Example out = concat_examples(batch, std::nullopt, Scalar{-1});
    CHECK(out[0].shape() == Shape{2, 3, 2});
    CHECK(values_of(out[0]) == std::vector<double>{1, 2, -1, -1, -1, -1, 3, -1, 4, -1, 5, -1});
    CHECK(out[1].shape() == Shape{2, 2});
    CHECK(values_of(out[1]) == std::vector<double>{5, -1, 6, 7});
    // Same shapes with padding: a plain stack.
    const Example same = concat_examples({batch[0], batch[0]}, std::nullopt, Scalar{0});
    CHECK(values_of(same[0]) == std::vector<double>{1, 2, 1, 2});
    // With padding, other dtypes are cast to the first example's (Chainer fills an array of that dtype).
    const Example cast = concat_examples({tuple_example({Array::from_vector<float>({1.5f}, {1})}),
                                          tuple_example({Array::from_vector<int32_t>({2, 3}, {2})})},
                                         std::nullopt, Scalar{0.25});
    CHECK(cast[0].dtype() == Dtype::kFloat32);
    CHECK(values_of(cast[0]) == std::vector<double>{1.5, 0.25, 2, 3});
    CHECK_THROWS_AS(concat_examples({tuple_example({Array::from_vector<float>({1}, {1})}),
                                     tuple_example({Array::from_vector<float>({1}, {1, 1})})},
                                    std::nullopt, Scalar{0}),
                    DimensionError);
}

TEST_CASE("concat_examples errors name the example and both shapes", "[training][datasets]") {
    const Example a = tuple_example({Array::from_vector<float>({1, 2}, {2}), Array::from_vector<int32_t>({1}, {})});
    const Example b = tuple_example({Array::from_vector<float>({1, 2, 3}, {3}), Array::from_vector<int32_t>({1}, {})});
    CHECK_THROWS_AS(concat_examples({a, b}), DimensionError);
    CHECK_THROWS_WITH(concat_examples({a, a, b}),
                      Catch::Contains("value 0 of example 2") && Catch::Contains("(3,)") && Catch::Contains("(2,)"));
    const Example c = tuple_example({Array::from_vector<double>({1, 2}, {2}), Array::from_vector<int32_t>({1}, {})});
    CHECK_THROWS_AS(concat_examples({a, c}), DtypeError);
    CHECK_THROWS_WITH(concat_examples({a, c}), Catch::Contains("float64") && Catch::Contains("float32"));
    CHECK_THROWS_WITH(concat_examples({}), Catch::Contains("empty"));
    const Example short_one = tuple_example({Array::from_vector<float>({1, 2}, {2})});
    CHECK_THROWS_WITH(concat_examples({a, short_one}), Catch::Contains("example 1 has 1 values"));
    Example dict_a{.values = {Array::from_vector<float>({1}, {1})}, .keys = {"x"}};
    Example dict_b{.values = {Array::from_vector<float>({1}, {1})}, .keys = {"y"}};
    CHECK_THROWS_WITH(concat_examples({dict_a, dict_b}), Catch::Contains("'y'") && Catch::Contains("'x'"));
    Example dict_c{.values = {Array::from_vector<float>({1, 2}, {2})}, .keys = {"x"}};
    CHECK_THROWS_WITH(concat_examples({dict_a, dict_c}), Catch::Contains("key 'x' of example 1"));
}

TEST_CASE("concat_examples transfers to the given device", "[training][datasets]") {
    const Example out = concat_examples({tuple_example({Array::from_vector<float>({1}, {1})})}, Device::native());
    CHECK(out[0].device() == Device::native());
    CHECK(out[0].shape() == Shape{1, 1});
    CHECK(values_of(out[0]) == std::vector<double>{1});
}

TEST_CASE("concat_examples of a large batch matches the examples", "[training][datasets]") {
    // The training hot path: 100 examples of 784 float32 values and int32 labels.
    const Array x = make_array(rensa::testing::iota(100 * 784, 0.5), {100, 784}, Dtype::kFloat32);
    std::vector<int32_t> labels(100);
    for (int32_t i = 0; i < 100; ++i) labels[static_cast<size_t>(i)] = i % 10;
    const datasets::TupleDataset dataset{{x, Array::from_vector(labels, {100})}};
    std::vector<int64_t> indices;
    for (int64_t i = 99; i >= 0; --i) indices.push_back(i);
    const Example out = concat_examples(dataset.get_examples(indices));
    const std::vector<double> got = values_of(out[0]);
    const std::vector<double> src = values_of(x);
    bool same = true;
    for (int64_t k = 0; k < 100; ++k) {
        for (int64_t p = 0; p < 784; ++p) same = same && got[k * 784 + p] == src[(99 - k) * 784 + p];
    }
    CHECK(same);
    CHECK(values_of(out[1])[0] == 9.0);
    CHECK(out[0].is_contiguous());
}
