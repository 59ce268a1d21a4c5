#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>

#include "distributed/scatter_dataset.h"
#include "tests/distributed/training/mn_training_testing.h"
#include "tests/testing/testing.h"
#include "training/datasets/dict_dataset.h"
#include "training/datasets/mnist.h"
#include "training/datasets/sub_dataset.h"
#include "training/datasets/tuple_dataset.h"

namespace {

using namespace rensa;
using distributed::ScatterDatasetOptions;
using rensa::testing::allgather_values;
using rensa::testing::mn_comm;

// Example i is (x = [i, 2i, 3i] float32, t = i int32).
training::DatasetPtr indexed_dataset(int64_t n) {
    std::vector<double> xs, ts;
    for (int64_t i = 0; i < n; ++i) {
        xs.insert(xs.end(), {double(i), 2.0 * double(i), 3.0 * double(i)});
        ts.push_back(double(i));
    }
    return std::make_shared<training::datasets::TupleDataset>(std::vector<Array>{
        testing::make_array(xs, Shape{n, 3}, Dtype::kFloat32), testing::make_array(ts, Shape{n}, Dtype::kInt32)});
}

// The dataset index each example of `shard` came from (its t), checking x agrees with it.
std::vector<int64_t> shard_indices(const training::DatasetPtr& shard) {
    std::vector<int64_t> out;
    bool consistent = true;
    for (int64_t i = 0; i < shard->size(); ++i) {
        const training::Example ex = shard->get_example(i);
        const auto t = static_cast<int64_t>(ex[1].item<int32_t>());
        const std::vector<double> x = ex[0].to_vector<double>();
        consistent = consistent && x == std::vector<double>{double(t), 2.0 * double(t), 3.0 * double(t)};
        out.push_back(t);
    }
    CHECK(consistent);
    return out;
}

// Example i is {"x": [i, ..., i] float64 of length i % 3 + 1, "t": i int64}: shapes differ,
// so scatter_dataset cannot stack them and sends the examples one by one.
class RaggedDataset final : public training::Dataset {
public:
    explicit RaggedDataset(int64_t n) : n_{n} {}
    int64_t size() const override { return n_; }
    training::Example get_example(int64_t i) const override {
        training::Example ex;
        ex.keys = {"x", "t"};
        ex.values = {
            testing::make_array(std::vector<double>(size_t(i % 3 + 1), double(i)), Shape{i % 3 + 1}, Dtype::kFloat64),
            testing::make_array({double(i)}, Shape{}, Dtype::kInt64)};
        return ex;
    }

private:
    int64_t n_;
};

// Counts of each index over every rank's shard.
std::map<int64_t, int> coverage(const std::vector<int64_t>& mine) {
    std::map<int64_t, int> counts;
    for (const int64_t v : allgather_values(mine)) ++counts[v];
    return counts;
}

}  // namespace

TEST_CASE("mn training: shard_range partitions or pads", "[distributed][training]") {
    for (const int64_t n : {0, 1, 2, 3, 7, 100, 101}) {
        for (const int size : {1, 2, 3, 4}) {
            std::vector<int> seen(static_cast<size_t>(n), 0);
            int64_t previous_end = 0;
            for (int r = 0; r < size; ++r) {
                const auto [b, e] = distributed::detail::shard_range(n, size, r, false);
                CHECK(b == previous_end);  // contiguous, in rank order
                CHECK((e - b == n / size || e - b == n / size + 1));
                for (int64_t i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
                previous_end = e;
                const auto [pb, pe] = distributed::detail::shard_range(n, size, r, true);
                CHECK(pe - pb == (n + size - 1) / size);  // equal length
                CHECK((pb >= 0 && pe <= n));
            }
            CHECK(previous_end == n);
            CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
            if (n > 0) CHECK(distributed::detail::shard_range(n, size, size - 1, true).second == n);
        }
    }
}

TEST_CASE("mn training: scatter_index covers every index", "[distributed][training]") {
    const auto& comm = mn_comm();
    for (const bool shuffle : {false, true}) {
        for (const bool equal : {false, true}) {
            // Only root's n and seed count.
            const int64_t n = comm->rank() == 0 ? 101 : 5;
            const distributed::IndexShard shard = distributed::scatter_index(
                n, comm, {.shuffle = shuffle, .seed = comm->rank() == 0 ? 7u : 9u, .force_equal_length = equal});
            CHECK(static_cast<int64_t>(shard.indices.size()) == shard.size());
            const std::map<int64_t, int> counts = coverage(shard.indices);
            CHECK(counts.size() == 101);
            CHECK(counts.begin()->first == 0);
            CHECK(counts.rbegin()->first == 100);
            const std::vector<int64_t> lengths = allgather_values({shard.size()});
            if (equal) {
                CHECK(std::all_of(lengths.begin(), lengths.end(),
                                  [&](int64_t l) { return l == (101 + comm->size() - 1) / comm->size(); }));
            } else {
                CHECK(std::all_of(counts.begin(), counts.end(), [](const auto& c) { return c.second == 1; }));
                CHECK(std::accumulate(lengths.begin(), lengths.end(), int64_t{0}) == 101);
            }
            if (shuffle) {
                // The same permutation on every rank: rank 0's first index is the permutation's first.
                const std::vector<int64_t> firsts = allgather_values({shard.indices.empty() ? -1 : shard.indices[0]});
                CHECK(firsts[0] == training::datasets::philox_permutation(101, 7)[0]);
            }
        }
    }
}

TEST_CASE("mn training: scatter_dataset from root sends the shards", "[distributed][training]") {
    const auto& comm = mn_comm();
    for (const bool shuffle : {false, true}) {
        for (const bool equal : {false, true}) {
            const ScatterDatasetOptions options{.shuffle = shuffle, .seed = 3, .force_equal_length = equal};
            const training::DatasetPtr full = comm->rank() == 0 ? indexed_dataset(101) : nullptr;
            const training::DatasetPtr shard = distributed::scatter_dataset(full, comm, options);
            const distributed::IndexShard expected = distributed::scatter_index(101, comm, options);
            CHECK(shard_indices(shard) == expected.indices);
            const std::map<int64_t, int> counts = coverage(shard_indices(shard));
            CHECK(counts.size() == 101);
            if (!equal) CHECK(std::all_of(counts.begin(), counts.end(), [](const auto& c) { return c.second == 1; }));
        }
    }
}

TEST_CASE("mn training: scatter_dataset from root stacks dict fields", "[distributed][training]") {
    const auto& comm = mn_comm();
    const int64_t n = 23;
    std::vector<double> imgs, labels;
    for (int64_t i = 0; i < n; ++i) {
        for (int j = 0; j < 6; ++j) imgs.push_back(double(i * 6 + j));
        labels.push_back(double(i));
    }
    training::DatasetPtr full;
    if (comm->rank() == 0) {
        full = std::make_shared<training::datasets::DictDataset>(std::vector<std::pair<std::string, Array>>{
            {"img", testing::make_array(imgs, Shape{n, 2, 3}, Dtype::kFloat32)},
            {"label", testing::make_array(labels, Shape{n}, Dtype::kInt32)}});
    }
    const ScatterDatasetOptions options{.shuffle = true, .seed = 5, .force_equal_length = false};
    const training::DatasetPtr shard = distributed::scatter_dataset(full, comm, options);
    const std::vector<int64_t> expected = distributed::scatter_index(n, comm, options).indices;
    REQUIRE(shard->size() == static_cast<int64_t>(expected.size()));
    bool same = true, views = true;
    for (int64_t i = 0; i < shard->size(); ++i) {
        const training::Example ex = shard->get_example(i);
        const int64_t index = expected[static_cast<size_t>(i)];
        same = same && ex.keys == std::vector<std::string>{"img", "label"} && ex["img"].shape() == Shape{2, 3} &&
               ex["img"].dtype() == Dtype::kFloat32 && ex["label"].dtype() == Dtype::kInt32 &&
               ex["label"].item<int32_t>() == index &&
               ex["img"].to_vector<double>() ==
                   std::vector<double>(imgs.begin() + index * 6, imgs.begin() + index * 6 + 6);
        // Received shards hold views of one stacked array per field.
        views = views && ex["img"].storage() == shard->get_example(0)["img"].storage();
    }
    CHECK(same);
    CHECK(views);
    CHECK(shard->get_example(-1)["label"].item<int32_t>() == expected.back());  // n > size: never empty
    CHECK_THROWS_AS(shard->get_example(shard->size()), IndexError);
}

TEST_CASE("mn training: scatter_dataset from root sends ragged examples one by one", "[distributed][training]") {
    const auto& comm = mn_comm();
    const int64_t n = 17;
    const training::DatasetPtr full = comm->rank() == 0 ? std::make_shared<RaggedDataset>(n) : nullptr;
    const ScatterDatasetOptions options{.shuffle = true, .seed = 9};
    const training::DatasetPtr shard = distributed::scatter_dataset(full, comm, options);
    const std::vector<int64_t> expected = distributed::scatter_index(n, comm, options).indices;
    REQUIRE(shard->size() == static_cast<int64_t>(expected.size()));
    const RaggedDataset reference{n};
    bool same = true;
    std::vector<int64_t> mine;
    for (int64_t i = 0; i < shard->size(); ++i) {
        const training::Example ex = shard->get_example(i);
        mine.push_back(ex["t"].item<int64_t>());
        const training::Example want = reference.get_example(expected[static_cast<size_t>(i)]);
        same = same && ex.keys == want.keys && ex["x"].shape() == want["x"].shape() &&
               ex["x"].dtype() == Dtype::kFloat64 && ex["t"].dtype() == Dtype::kInt64 &&
               ex["x"].to_vector<double>() == want["x"].to_vector<double>() &&
               ex["t"].item<int64_t>() == want["t"].item<int64_t>();
    }
    CHECK(same);
    CHECK(coverage(mine).size() == static_cast<size_t>(n));
}

TEST_CASE("mn training: scatter_dataset on every rank splits by index", "[distributed][training]") {
    const auto& comm = mn_comm();
    const training::DatasetPtr full = indexed_dataset(101);
    const ScatterDatasetOptions options{.shuffle = true, .seed = 11, .force_equal_length = false};
    const training::DatasetPtr shard = distributed::scatter_dataset(full, comm, options);
    // A view of the local dataset: no data was sent.
    const auto* view = dynamic_cast<const training::datasets::SubDataset*>(shard.get());
    REQUIRE(view != nullptr);
    CHECK(view->dataset() == full);
    CHECK(shard_indices(shard) == distributed::scatter_index(101, comm, options).indices);
}

TEST_CASE("mn training: scatter_dataset with another root and errors", "[distributed][training]") {
    const auto& comm = mn_comm();
    const int root = comm->size() - 1;
    const training::DatasetPtr full = comm->rank() == root ? indexed_dataset(10) : nullptr;
    const training::DatasetPtr shard = distributed::scatter_dataset(full, comm, {.root = root});
    CHECK(coverage(shard_indices(shard)).size() == 10);
    // Root without a dataset: every rank throws.
    const training::DatasetPtr missing = comm->rank() == root ? nullptr : indexed_dataset(10);
    if (comm->size() > 1) {
        CHECK_THROWS_AS(distributed::scatter_dataset(missing, comm, {.root = root}), ValueError);
        // Every rank has one, of different lengths.
        CHECK_THROWS_AS(distributed::scatter_dataset(indexed_dataset(10 + comm->rank()), comm), ValueError);
    }
    CHECK_THROWS_AS(distributed::scatter_dataset(nullptr, comm), ValueError);
    CHECK_THROWS_AS(distributed::scatter_dataset(full, comm, {.root = comm->size()}), ValueError);
}

TEST_CASE("mn training: examples survive serialization", "[distributed][training]") {
    training::Example dict;
    dict.keys = {"img", "label", "mask"};
    dict.values = {
        testing::make_array({1.5, -2.0, 3.25, 4.0}, Shape{2, 2}, Dtype::kFloat16, testing::Layout::kTransposed),
        testing::make_array({7}, Shape{}, Dtype::kInt64), testing::make_array({1, 0, 1}, Shape{3}, Dtype::kBool)};
    training::Example tuple;
    tuple.values = {testing::make_array({}, Shape{0, 3}, Dtype::kFloat64), Array{}};
    const std::vector<training::Example> back =
        distributed::detail::deserialize_examples(distributed::detail::serialize_examples({dict, tuple}));
    REQUIRE(back.size() == 2);
    CHECK(back[0].keys == dict.keys);
    for (size_t i = 0; i < 3; ++i) {
        CHECK(back[0].values[i].dtype() == dict.values[i].dtype());
        testing::check_allclose(back[0].values[i], dict.values[i]);
    }
    CHECK(back[1].keys.empty());
    CHECK(back[1].values[0].shape() == Shape{0, 3});
    CHECK(!back[1].values[1].defined());
    CHECK_THROWS(distributed::detail::deserialize_examples("abc"));
}

TEST_CASE("mn training: iterations_per_epoch agrees on the max", "[distributed][training]") {
    const auto& comm = mn_comm();
    // Rank r has 10 + 7r examples: batches of 4 give ceil((10 + 7r) / 4).
    const int64_t agreed = distributed::iterations_per_epoch(10 + 7 * comm->rank(), 4, *comm);
    CHECK(agreed == (10 + 7 * (comm->size() - 1) + 3) / 4);
    CHECK_THROWS_AS(distributed::iterations_per_epoch(3, 0, *comm), ValueError);
}

// Not run by default (hidden tag): times scattering a Fashion-MNIST-sized dataset from root.
// Run it with: mpiexec -n 2 rensa_distributed_training_tests "[scatter_benchmark]" -s
TEST_CASE("mn training: scatter_dataset benchmark 60000 x 784", "[.][scatter_benchmark]") {
    const auto& comm = mn_comm();
    const int64_t n = 60000, d = 784;
    training::DatasetPtr full;
    if (comm->rank() == 0) {
        Array x = Array::empty(Shape{n, d}, Dtype::kFloat32, Device::native());
        Array t = Array::empty(Shape{n}, Dtype::kInt32, Device::native());
        auto* xp = static_cast<float*>(x.raw_data());
        auto* tp = static_cast<int32_t*>(t.raw_data());
        for (int64_t i = 0; i < n * d; ++i) xp[i] = static_cast<float>(i % 1000);
        for (int64_t i = 0; i < n; ++i) tp[i] = static_cast<int32_t>(i);
        full = std::make_shared<training::datasets::TupleDataset>(std::vector<Array>{x, t});
    }
    comm->barrier();
    const auto start = std::chrono::steady_clock::now();
    const training::DatasetPtr shard = distributed::scatter_dataset(full, comm, {.shuffle = true, .seed = 1});
    comm->barrier();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (comm->rank() == 0)
        WARN("scatter_dataset of " << n << " x " << d << " over " << comm->size() << " ranks: " << seconds << " s");
    const training::Example last = shard->get_example(shard->size() - 1);
    const auto index = static_cast<int64_t>(last[1].item<int32_t>());
    CHECK(last[0].to_vector<double>()[5] == double((index * d + 5) % 1000));
    CHECK(shard->size() == (n + comm->size() - 1) / comm->size());
}

// Not run by default: the same with Fashion-MNIST's training set (skipped when it is absent).
TEST_CASE("mn training: scatter_dataset benchmark fashion-mnist", "[.][scatter_benchmark]") {
    const auto& comm = mn_comm();
    training::DatasetPtr full;
    bool present = true;
    try {
        if (comm->rank() == 0) full = training::datasets::get_fashion_mnist().first;
    } catch (const IOError&) {
        present = false;
    }
    if (comm->bcast_obj(present ? "1" : "0", 0) == "0") return;
    comm->barrier();
    const auto start = std::chrono::steady_clock::now();
    const training::DatasetPtr shard = distributed::scatter_dataset(full, comm, {.shuffle = true, .seed = 1});
    comm->barrier();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (comm->rank() == 0)
        WARN("scatter_dataset of Fashion-MNIST over " << comm->size() << " ranks: " << seconds << " s");
    CHECK(shard->size() == (60000 + comm->size() - 1) / comm->size());
}
