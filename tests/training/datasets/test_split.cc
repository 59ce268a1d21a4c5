#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "core/error.h"
#include "core/random.h"
#include "training/datasets/datasets.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::datasets;

DatasetPtr range_dataset(int32_t n) {
    std::vector<int32_t> values(static_cast<size_t>(n));
    std::iota(values.begin(), values.end(), 0);
    return std::make_shared<TupleDataset>(std::vector<Array>{Array::from_vector(values, {n})});
}

std::vector<int64_t> ids(const DatasetPtr& dataset) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < dataset->size(); ++i) out.push_back(dataset->get_example(i)[0].item<int64_t>());
    return out;
}

// The ids of both parts together, sorted: 0..n-1 exactly once when they partition the dataset.
std::vector<int64_t> joined_sorted(const DatasetPtr& a, const DatasetPtr& b) {
    std::vector<int64_t> all = ids(a);
    const std::vector<int64_t> rest = ids(b);
    all.insert(all.end(), rest.begin(), rest.end());
    std::sort(all.begin(), all.end());
    return all;
}

std::vector<int64_t> iota64(int64_t n) {
    std::vector<int64_t> out(static_cast<size_t>(n));
    std::iota(out.begin(), out.end(), int64_t{0});
    return out;
}

}  // namespace

TEST_CASE("split_dataset splits at an index with and without an order", "[training][datasets]") {
    const DatasetPtr base = range_dataset(7);
    const auto [a, b] = split_dataset(base, 3);
    CHECK(ids(a) == std::vector<int64_t>{0, 1, 2});
    CHECK(ids(b) == std::vector<int64_t>{3, 4, 5, 6});
    const auto [c, d] = split_dataset(base, 2, std::vector<int64_t>{6, 5, 4, 3, 2, 1, 0});
    CHECK(ids(c) == std::vector<int64_t>{6, 5});
    CHECK(ids(d) == std::vector<int64_t>{4, 3, 2, 1, 0});
    CHECK(split_dataset(base, 0).first->size() == 0);
    CHECK(split_dataset(base, 7).second->size() == 0);
    CHECK_THROWS_WITH(split_dataset(base, 8), Catch::Contains("split_at = 8") && Catch::Contains("size 7"));
    CHECK_THROWS_AS(split_dataset(base, -1), ValueError);
    CHECK_THROWS_AS(split_dataset(base, 1, std::vector<int64_t>{0, 1}), ValueError);
}

TEST_CASE("split_dataset_random gives disjoint parts of the right sizes", "[training][datasets]") {
    const DatasetPtr base = range_dataset(50);
    const auto [a, b] = split_dataset_random(base, 20, 1234);
    CHECK(a->size() == 20);
    CHECK(b->size() == 30);
    CHECK(joined_sorted(a, b) == iota64(50));
    CHECK(ids(a) != iota64(20));  // shuffled
    CHECK_THROWS_AS(split_dataset_random(base, 51, 1), ValueError);
}

TEST_CASE("split_dataset_random is deterministic for a seed", "[training][datasets]") {
    const DatasetPtr base = range_dataset(40);
    const auto first = split_dataset_random(base, 10, 7);
    const auto again = split_dataset_random(base, 10, 7);
    const auto other = split_dataset_random(base, 10, 8);
    CHECK(ids(first.first) == ids(again.first));
    CHECK(ids(first.second) == ids(again.second));
    CHECK(ids(first.first) != ids(other.first));
    // Without a seed it follows the global generator: rensa::seed fixes it.
    rensa::seed(99);
    const auto x = split_dataset_random(base, 10);
    rensa::seed(99);
    const auto y = split_dataset_random(base, 10);
    CHECK(ids(x.first) == ids(y.first));
    const auto z = split_dataset_random(base, 10);
    CHECK(ids(x.first) != ids(z.first));
}

TEST_CASE("philox_permutation is a permutation and depends on the seed", "[training][datasets]") {
    const std::vector<int64_t> p = philox_permutation(1000, 5);
    std::vector<int64_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == iota64(1000));
    CHECK(p == philox_permutation(1000, 5));
    CHECK(p != philox_permutation(1000, 6));
    CHECK(philox_permutation(0, 1).empty());
    CHECK(philox_permutation(1, 1) == std::vector<int64_t>{0});
    // Roughly uniform: element 0 lands in each half about equally often over many seeds.
    int low = 0;
    for (uint64_t seed = 0; seed < 400; ++seed) low += philox_permutation(10, seed)[0] < 5;
    CHECK(low > 150);
    CHECK(low < 250);
}

TEST_CASE("get_cross_validation_datasets follows Chainer's fold layout", "[training][datasets]") {
    const DatasetPtr base = range_dataset(6);
    const auto folds = get_cross_validation_datasets(base, 3);
    REQUIRE(folds.size() == 3);
    // Chainer: the first split tests the last block, then the order rotates.
    CHECK(ids(folds[0].first) == std::vector<int64_t>{0, 1, 2, 3});
    CHECK(ids(folds[0].second) == std::vector<int64_t>{4, 5});
    CHECK(ids(folds[1].first) == std::vector<int64_t>{4, 5, 0, 1});
    CHECK(ids(folds[1].second) == std::vector<int64_t>{2, 3});
    CHECK(ids(folds[2].first) == std::vector<int64_t>{2, 3, 4, 5});
    CHECK(ids(folds[2].second) == std::vector<int64_t>{0, 1});
}

TEST_CASE("get_cross_validation_datasets test parts partition the dataset", "[training][datasets]") {
    const DatasetPtr base = range_dataset(11);
    const auto folds = get_cross_validation_datasets(base, 4, std::vector<int64_t>{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
    REQUIRE(folds.size() == 4);
    std::multiset<int64_t> tested;
    std::vector<int64_t> test_sizes;
    for (const auto& [train, test] : folds) {
        CHECK(joined_sorted(train, test) == iota64(11));
        for (const int64_t id : ids(test)) tested.insert(id);
        test_sizes.push_back(test->size());
    }
    CHECK(std::vector<int64_t>(tested.begin(), tested.end()) == iota64(11));
    CHECK(test_sizes == std::vector<int64_t>{3, 3, 3, 2});  // Chainer: borders 0, 2, 5, 8, 11, reversed
    CHECK(ids(folds[0].second) == std::vector<int64_t>{2, 1, 0});
    CHECK_THROWS_WITH(get_cross_validation_datasets(base, 12), Catch::Contains("n_folds = 12"));
    CHECK_THROWS_AS(get_cross_validation_datasets(base, 0), ValueError);
    CHECK_THROWS_AS(get_cross_validation_datasets(base, 2, std::vector<int64_t>{0}), ValueError);
}

TEST_CASE("get_cross_validation_datasets_random is deterministic per seed", "[training][datasets]") {
    const DatasetPtr base = range_dataset(20);
    const auto a = get_cross_validation_datasets_random(base, 5, 3);
    const auto b = get_cross_validation_datasets_random(base, 5, 3);
    const auto c = get_cross_validation_datasets_random(base, 5, 4);
    REQUIRE(a.size() == 5);
    std::set<int64_t> tested;
    for (size_t k = 0; k < a.size(); ++k) {
        CHECK(a[k].second->size() == 4);
        CHECK(ids(a[k].second) == ids(b[k].second));
        CHECK(joined_sorted(a[k].first, a[k].second) == iota64(20));
        for (const int64_t id : ids(a[k].second)) tested.insert(id);
    }
    CHECK(tested.size() == 20);
    CHECK(ids(a[0].second) != ids(c[0].second));
}
