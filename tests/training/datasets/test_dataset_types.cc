#include <catch2/catch.hpp>

#include "core/error.h"
#include "tests/testing/testing.h"
#include "tests/training/datasets/datasets_testing.h"
#include "training/datasets/datasets.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::datasets;
using rensa::training::testing::values_of;

// x: (5, 2, 3) float32 with values 0..29; t: (5,) int32 with 10..14.
std::vector<Array> xt() {
    return {rensa::testing::make_array(rensa::testing::iota(30), {5, 2, 3}, Dtype::kFloat32),
            Array::from_vector<int32_t>({10, 11, 12, 13, 14}, {5})};
}

DatasetPtr tuple_of_ints(int32_t first, int32_t count) {
    std::vector<int32_t> values;
    for (int32_t i = 0; i < count; ++i) values.push_back(first + i);
    return std::make_shared<TupleDataset>(std::vector<Array>{Array::from_vector(values, {count})});
}

// The first value of every example, as integers.
std::vector<int64_t> firsts(const Dataset& dataset) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < dataset.size(); ++i) out.push_back(dataset.get_example(i)[0].item<int64_t>());
    return out;
}

}  // namespace

TEST_CASE("TupleDataset gives views of each row", "[training][datasets]") {
    const std::vector<Array> arrays = xt();
    const TupleDataset dataset{arrays};
    CHECK(dataset.size() == 5);
    const Example e = dataset.get_example(2);
    REQUIRE(e.size() == 2);
    CHECK_FALSE(e.is_dict());
    CHECK(e[0].shape() == Shape{2, 3});
    CHECK(values_of(e[0]) == std::vector<double>{12, 13, 14, 15, 16, 17});
    CHECK(e[1].ndim() == 0);
    CHECK(e[1].item<int32_t>() == 12);
    CHECK(e[0].storage() == arrays[0].storage());  // a view, no copy
    arrays[0].fill(7.0);
    CHECK(values_of(e[0])[0] == 7.0);
    CHECK(dataset.get_example(-1)[1].item<int32_t>() == 14);
}

TEST_CASE("TupleDataset works on strided arrays", "[training][datasets]") {
    const Array base = rensa::testing::make_array(rensa::testing::iota(12), {4, 3}, Dtype::kFloat32);
    const TupleDataset dataset{{base.transpose()}};  // 3 examples of shape (4,)
    CHECK(dataset.size() == 3);
    CHECK(values_of(dataset.get_example(1)[0]) == std::vector<double>{1, 4, 7, 10});
    const std::vector<Example> batch = dataset.get_examples({2, 0});
    CHECK(values_of(batch[0][0]) == std::vector<double>{2, 5, 8, 11});
    CHECK(values_of(batch[1][0]) == std::vector<double>{0, 3, 6, 9});
}

TEST_CASE("TupleDataset errors name the lengths and the index", "[training][datasets]") {
    CHECK_THROWS_AS(TupleDataset{std::vector<Array>{}}, ValueError);
    const std::vector<Array> arrays{Array::from_vector<float>({1, 2, 3}, {3}), Array::from_vector<float>({1, 2}, {2})};
    CHECK_THROWS_WITH(TupleDataset{arrays}, Catch::Contains("wrong length 2") && Catch::Contains("3, 2"));
    CHECK_THROWS_AS(TupleDataset{{Array::from_vector<float>({1}, {})}}, DimensionError);
    const TupleDataset dataset{xt()};
    CHECK_THROWS_AS(dataset.get_example(5), IndexError);
    CHECK_THROWS_WITH(dataset.get_example(-6), Catch::Contains("-6") && Catch::Contains("size 5"));
}

TEST_CASE("DictDataset gives dict examples with keys in the given order", "[training][datasets]") {
    const std::vector<Array> arrays = xt();
    const DictDataset dataset{{{"y", arrays[1]}, {"x", arrays[0]}}};
    CHECK(dataset.size() == 5);
    const Example e = dataset.get_example(3);
    CHECK(e.is_dict());
    CHECK(e.keys == std::vector<std::string>{"y", "x"});
    CHECK(e["y"].item<int32_t>() == 13);
    CHECK(values_of(e["x"])[0] == 18.0);
    CHECK_THROWS_AS(e["z"], KeyError);
    CHECK_THROWS_WITH((DictDataset{{{"a", arrays[0]}, {"a", arrays[1]}}}), Catch::Contains("'a' is given twice"));
    CHECK_THROWS_WITH((DictDataset{{{"a", arrays[0]}, {"b", Array::from_vector<float>({1}, {1})}}}),
                      Catch::Contains("a: 5") && Catch::Contains("b: 1"));
    CHECK_THROWS_AS(dataset.get_example(-7), IndexError);
}

TEST_CASE("SubDataset with start and finish and with an order", "[training][datasets]") {
    const DatasetPtr base = tuple_of_ints(100, 6);
    const SubDataset sub{base, 1, 4};
    CHECK(sub.size() == 3);
    CHECK(firsts(sub) == std::vector<int64_t>{101, 102, 103});
    CHECK(sub.get_example(-1)[0].item<int32_t>() == 103);
    CHECK_THROWS_AS(sub.get_example(3), IndexError);
    CHECK_THROWS_AS(sub.get_example(-4), IndexError);

    const SubDataset ordered{base, 2, 5, std::vector<int64_t>{5, 4, 3, 2, 1, 0}};
    CHECK(firsts(ordered) == std::vector<int64_t>{103, 102, 101});
    const std::vector<Example> batch = ordered.get_examples({2, 0, -2});
    CHECK(batch[0][0].item<int32_t>() == 101);
    CHECK(batch[1][0].item<int32_t>() == 103);
    CHECK(batch[2][0].item<int32_t>() == 102);
}

TEST_CASE("SubDataset rejects bad bounds and orders", "[training][datasets]") {
    const DatasetPtr base = tuple_of_ints(0, 4);
    CHECK_THROWS_WITH((SubDataset{base, -1, 2}), Catch::Contains("[-1, 2)") && Catch::Contains("size 4"));
    CHECK_THROWS_AS((SubDataset{base, 0, 5}), ValueError);
    CHECK_THROWS_AS((SubDataset{base, 3, 2}), ValueError);
    CHECK_THROWS_WITH((SubDataset{base, 0, 2, std::vector<int64_t>{0, 1}}),
                      Catch::Contains("len(order) = 2") && Catch::Contains("len(dataset) = 4"));
    CHECK_THROWS_WITH((SubDataset{base, 0, 2, std::vector<int64_t>{0, 1, 2, 4}}), Catch::Contains("order[3] = 4"));
    CHECK_THROWS_AS(SubDataset::from_indices(base, {0, 9}), IndexError);
}

TEST_CASE("slice follows Python slice semantics", "[training][datasets]") {
    const DatasetPtr base = tuple_of_ints(0, 10);
    CHECK(firsts(*slice(base, 2, 5)) == std::vector<int64_t>{2, 3, 4});
    CHECK(firsts(*slice(base, std::nullopt, std::nullopt, 3)) == std::vector<int64_t>{0, 3, 6, 9});
    CHECK(firsts(*slice(base, -3, std::nullopt)) == std::vector<int64_t>{7, 8, 9});
    CHECK(firsts(*slice(base, std::nullopt, std::nullopt, -1)) == std::vector<int64_t>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
    CHECK(firsts(*slice(base, 8, 2, -2)) == std::vector<int64_t>{8, 6, 4});
    CHECK(firsts(*slice(base, -2, -20, -4)) == std::vector<int64_t>{8, 4, 0});
    CHECK(slice(base, 5, 2)->size() == 0);
    CHECK(slice(base, 20, 30)->size() == 0);
    CHECK(firsts(*slice(base, -100, 100, 4)) == std::vector<int64_t>{0, 4, 8});
    CHECK(firsts(*slice(slice(base, 1, std::nullopt, 2), std::nullopt, std::nullopt, -1)) ==
          std::vector<int64_t>{9, 7, 5, 3, 1});
    CHECK_THROWS_AS(slice(base, 0, 3, 0), ValueError);
}

TEST_CASE("ConcatenatedDataset chains datasets and gathers per dataset", "[training][datasets]") {
    const auto empty = std::make_shared<SubDataset>(tuple_of_ints(0, 3), 1, 1);
    const ConcatenatedDataset dataset{{tuple_of_ints(0, 2), empty, tuple_of_ints(10, 3)}};
    CHECK(dataset.size() == 5);
    CHECK(firsts(dataset) == std::vector<int64_t>{0, 1, 10, 11, 12});
    CHECK(dataset.get_example(-1)[0].item<int32_t>() == 12);
    const std::vector<Example> batch = dataset.get_examples({4, 0, 2, 1, -4});
    std::vector<int64_t> got;
    for (const Example& e : batch) got.push_back(e[0].item<int64_t>());
    CHECK(got == std::vector<int64_t>{12, 0, 10, 1, 1});
    CHECK_THROWS_AS(dataset.get_example(5), IndexError);
    CHECK(ConcatenatedDataset{{}}.size() == 0);
    CHECK_THROWS_AS(ConcatenatedDataset{{nullptr}}, ValueError);
}

TEST_CASE("TransformDataset applies the transform on access", "[training][datasets]") {
    const DatasetPtr base = tuple_of_ints(1, 4);
    const TransformDataset dataset{base, [](const Example& e) {
                                       const int32_t v = e[0].item<int32_t>();
                                       return training::testing::int_example({v * 10, -v});
                                   }};
    CHECK(dataset.size() == 4);
    const Example e = dataset.get_example(2);
    REQUIRE(e.size() == 2);
    CHECK(e[0].item<int32_t>() == 30);
    CHECK(e[1].item<int32_t>() == -3);
    const std::vector<Example> batch = dataset.get_examples({3, 0});
    CHECK(batch[0][0].item<int32_t>() == 40);
    CHECK(batch[1][1].item<int32_t>() == -1);
    CHECK_THROWS_AS(dataset.get_example(4), IndexError);
    CHECK_THROWS_AS((TransformDataset{base, nullptr}), ValueError);
}
