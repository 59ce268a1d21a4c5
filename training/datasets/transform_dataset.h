#pragma once
// chainer.datasets.TransformDataset: applies a function to each example of a base
// dataset when it is read (data augmentation, preprocessing).

#include <functional>

#include "training/dataset.h"

namespace rensa::training::datasets {

// Must be safe to call from several threads at once (MultithreadIterator prefetches on
// threads): keep no unsynchronised mutable state in it. It should not write into the
// input example's arrays (they may be views of the base dataset's storage).
using Transform = std::function<Example(const Example&)>;

class TransformDataset final : public Dataset {
public:
    // ValueError for a null dataset or an empty transform.
    TransformDataset(DatasetPtr dataset, Transform transform);
    int64_t size() const override { return dataset_->size(); }
    Example get_example(int64_t i) const override;
    // Gathers through the base dataset's get_examples, then transforms each example.
    std::vector<Example> get_examples(const std::vector<int64_t>& indices) const override;
    const DatasetPtr& dataset() const { return dataset_; }

private:
    DatasetPtr dataset_;
    Transform transform_;
};

}  // namespace rensa::training::datasets
