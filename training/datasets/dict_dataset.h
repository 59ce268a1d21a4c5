#pragma once
// chainer.datasets.DictDataset: named arrays of equal length; example i is the dict
// {name: array[i], ...} with the keys in the order given, each value a view (no copy).

#include <string>
#include <utility>
#include <vector>

#include "training/dataset.h"

namespace rensa::training::datasets {

class DictDataset final : public Dataset {
public:
    // ValueError when empty, for a repeated or empty name, or when the first dimensions
    // differ (naming each key and length).
    explicit DictDataset(std::vector<std::pair<std::string, Array>> arrays);
    int64_t size() const override;
    Example get_example(int64_t i) const override;
    const std::vector<std::string>& keys() const { return keys_; }
    const std::vector<Array>& arrays() const { return arrays_; }

private:
    std::vector<std::string> keys_;
    std::vector<Array> arrays_;
};

}  // namespace rensa::training::datasets
