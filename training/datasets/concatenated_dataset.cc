#include "training/datasets/concatenated_dataset.h"

#include <algorithm>

#include "core/error.h"
#include "training/datasets/detail.h"

namespace rensa::training::datasets {

ConcatenatedDataset::ConcatenatedDataset(std::vector<DatasetPtr> datasets) : datasets_{std::move(datasets)} {
    offsets_.push_back(0);
    for (size_t k = 0; k < datasets_.size(); ++k) {
        RENSA_CHECK(datasets_[k] != nullptr, ValueError, "ConcatenatedDataset: dataset ", k, " is null");
        offsets_.push_back(offsets_.back() + datasets_[k]->size());
    }
}

std::pair<size_t, int64_t> ConcatenatedDataset::locate(int64_t i) const {
    // The last offset <= i; empty datasets share an offset with the next one, which upper_bound skips.
    const auto it = std::upper_bound(offsets_.begin(), offsets_.end(), i) - 1;
    const auto k = static_cast<size_t>(it - offsets_.begin());
    return {k, i - *it};
}

Example ConcatenatedDataset::get_example(int64_t i) const {
    const auto [k, j] = locate(detail::normalize_index(i, size(), "ConcatenatedDataset"));
    return datasets_[k]->get_example(j);
}

std::vector<Example> ConcatenatedDataset::get_examples(const std::vector<int64_t>& indices) const {
    std::vector<std::vector<int64_t>> local(datasets_.size());
    std::vector<std::pair<size_t, size_t>> where;  // {dataset, position in its request} per batch entry
    where.reserve(indices.size());
    for (const int64_t i : indices) {
        const auto [k, j] = locate(detail::normalize_index(i, size(), "ConcatenatedDataset"));
        where.emplace_back(k, local[k].size());
        local[k].push_back(j);
    }
    std::vector<std::vector<Example>> parts(datasets_.size());
    for (size_t k = 0; k < datasets_.size(); ++k) {
        if (!local[k].empty()) parts[k] = datasets_[k]->get_examples(local[k]);
    }
    std::vector<Example> examples;
    examples.reserve(indices.size());
    for (const auto& [k, position] : where) examples.push_back(std::move(parts[k][position]));
    return examples;
}

}  // namespace rensa::training::datasets
