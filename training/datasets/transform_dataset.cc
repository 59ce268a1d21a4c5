#include "training/datasets/transform_dataset.h"

#include "core/error.h"
#include "training/datasets/detail.h"

namespace rensa::training::datasets {

TransformDataset::TransformDataset(DatasetPtr dataset, Transform transform)
    : dataset_{std::move(dataset)}, transform_{std::move(transform)} {
    RENSA_CHECK(dataset_ != nullptr, ValueError, "TransformDataset: the base dataset is null");
    RENSA_CHECK(static_cast<bool>(transform_), ValueError, "TransformDataset: the transform is empty");
}

Example TransformDataset::get_example(int64_t i) const {
    return transform_(dataset_->get_example(detail::normalize_index(i, size(), "TransformDataset")));
}

std::vector<Example> TransformDataset::get_examples(const std::vector<int64_t>& indices) const {
    std::vector<Example> examples = dataset_->get_examples(indices);
    for (Example& example : examples) example = transform_(example);
    return examples;
}

}  // namespace rensa::training::datasets
