#pragma once
// chainer.datasets.ConcatenatedDataset: the examples of several datasets one after
// another (a view: nothing is copied).

#include <utility>
#include <vector>

#include "training/dataset.h"

namespace rensa::training::datasets {

class ConcatenatedDataset final : public Dataset {
public:
    // ValueError for a null dataset. No datasets give an empty dataset, as in Chainer.
    explicit ConcatenatedDataset(std::vector<DatasetPtr> datasets);
    int64_t size() const override { return offsets_.back(); }
    Example get_example(int64_t i) const override;
    // Asks each base dataset once for its part of the batch, keeping the batch's order.
    std::vector<Example> get_examples(const std::vector<int64_t>& indices) const override;
    const std::vector<DatasetPtr>& datasets() const { return datasets_; }

private:
    // {dataset number, index in it} of example i (already in [0, size)).
    std::pair<size_t, int64_t> locate(int64_t i) const;

    std::vector<DatasetPtr> datasets_;
    std::vector<int64_t> offsets_;  // offsets_[k]: index of dataset k's first example; back(): size
};

}  // namespace rensa::training::datasets
