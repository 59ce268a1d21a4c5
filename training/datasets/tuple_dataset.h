#pragma once
// chainer.datasets.TupleDataset: zips arrays of equal length; example i is (a[i], b[i], ...),
// each a view (no copy).

#include <vector>

#include "training/dataset.h"

namespace rensa::training::datasets {

class TupleDataset final : public Dataset {
public:
    // ValueError when empty or when the first dimensions differ (naming each length).
    explicit TupleDataset(std::vector<Array> arrays);
    int64_t size() const override;
    Example get_example(int64_t i) const override;
    const std::vector<Array>& arrays() const { return arrays_; }

private:
    std::vector<Array> arrays_;
};

}  // namespace rensa::training::datasets
