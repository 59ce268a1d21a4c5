#pragma once
// chainer.datasets.SubDataset and the functions that split a dataset: split_dataset,
// split_dataset_random, get_cross_validation_datasets(_random). Every subset is a view
// of its base dataset (no example is copied).

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "training/dataset.h"

namespace rensa::training::datasets {

using IndexOrder = std::shared_ptr<const std::vector<int64_t>>;

class SubDataset final : public Dataset {
public:
    // Examples start, ..., finish - 1 of `dataset`; with `order`, example i is
    // dataset[order[start + i]] (Chainer's SubDataset). ValueError unless
    // 0 <= start <= finish <= len(dataset), len(order) == len(dataset) and every order
    // entry is in [0, len(dataset)).
    SubDataset(DatasetPtr dataset, int64_t start, int64_t finish,
               std::optional<std::vector<int64_t>> order = std::nullopt);
    // The same with an order shared by several subsets (split_dataset's two halves).
    SubDataset(DatasetPtr dataset, int64_t start, int64_t finish, IndexOrder order);
    // Example i is dataset[indices[i]] (any indices in [0, len(dataset)), repeats
    // allowed): the view slice() returns. IndexError naming an index out of range.
    [[nodiscard]] static std::shared_ptr<SubDataset> from_indices(DatasetPtr dataset, std::vector<int64_t> indices);

    int64_t size() const override { return finish_ - start_; }
    Example get_example(int64_t i) const override;
    // Maps the indices and asks the base dataset for all of them at once.
    std::vector<Example> get_examples(const std::vector<int64_t>& indices) const override;

    const DatasetPtr& dataset() const { return dataset_; }
    int64_t start() const { return start_; }
    int64_t finish() const { return finish_; }
    // The index into dataset() of example i (i in [-size, size); IndexError otherwise).
    int64_t base_index(int64_t i) const;

private:
    DatasetPtr dataset_;
    int64_t start_;
    int64_t finish_;
    IndexOrder order_;  // null: the identity
};

// Two subsets: examples [0, split_at) and [split_at, len) of `dataset` (through `order`
// when given). ValueError when split_at is outside [0, len(dataset)] or order is not
// of the dataset's length.
[[nodiscard]] std::pair<DatasetPtr, DatasetPtr> split_dataset(DatasetPtr dataset, int64_t split_at,
                                                              std::optional<std::vector<int64_t>> order = std::nullopt);

// split_dataset through a random permutation: first_size examples, then the rest.
// The permutation comes from Philox (core/random.h): the same seed gives the same split
// (not numpy's RandomState stream); without a seed one is drawn from the global generator.
[[nodiscard]] std::pair<DatasetPtr, DatasetPtr> split_dataset_random(DatasetPtr dataset, int64_t first_size,
                                                                     std::optional<uint64_t> seed = std::nullopt);

// n_folds (train, test) pairs whose test parts partition the dataset; as in Chainer, pair k
// tests block n_folds-1-k (block b: positions [len*b/n, len*(b+1)/n) of the order) and
// trains on the rest. ValueError unless 1 <= n_folds <= len(dataset).
[[nodiscard]] std::vector<std::pair<DatasetPtr, DatasetPtr>> get_cross_validation_datasets(
    DatasetPtr dataset, int64_t n_folds, std::optional<std::vector<int64_t>> order = std::nullopt);

// The same over a random permutation from Philox (see split_dataset_random).
[[nodiscard]] std::vector<std::pair<DatasetPtr, DatasetPtr>> get_cross_validation_datasets_random(
    DatasetPtr dataset, int64_t n_folds, std::optional<uint64_t> seed = std::nullopt);

// A permutation of 0..n-1 from Philox4x32 keyed by `seed` (a Fisher-Yates shuffle);
// the same seed always gives the same permutation.
[[nodiscard]] std::vector<int64_t> philox_permutation(int64_t n, uint64_t seed);

}  // namespace rensa::training::datasets
