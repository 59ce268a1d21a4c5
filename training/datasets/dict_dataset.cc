#include "training/datasets/dict_dataset.h"

#include <sstream>

#include "core/error.h"
#include "training/datasets/detail.h"

namespace rensa::training::datasets {

DictDataset::DictDataset(std::vector<std::pair<std::string, Array>> arrays) {
    RENSA_CHECK(!arrays.empty(), ValueError, "DictDataset: no arrays are given");
    for (auto& [key, array] : arrays) {
        RENSA_CHECK(!key.empty(), ValueError, "DictDataset: a key must not be empty");
        for (const std::string& seen : keys_) {
            RENSA_CHECK(seen != key, ValueError, "DictDataset: key '", key, "' is given twice");
        }
        RENSA_CHECK(array.defined() && array.ndim() >= 1, DimensionError, "DictDataset: array '", key,
                    "' must have at least one dimension (the example axis)");
        keys_.push_back(key);
        arrays_.push_back(std::move(array));
    }
    for (size_t k = 1; k < arrays_.size(); ++k) {
        if (arrays_[k].shape()[0] == arrays_[0].shape()[0]) continue;
        std::ostringstream lengths;
        for (size_t j = 0; j < arrays_.size(); ++j)
            lengths << (j ? ", " : "") << keys_[j] << ": " << arrays_[j].shape()[0];
        RENSA_THROW(ValueError, "DictDataset: the arrays have different lengths (", lengths.str(), ")");
    }
}

int64_t DictDataset::size() const { return arrays_[0].shape()[0]; }

Example DictDataset::get_example(int64_t i) const {
    const int64_t index = detail::normalize_index(i, size(), "DictDataset");
    Example example;
    example.keys = keys_;
    example.values.reserve(arrays_.size());
    for (const Array& a : arrays_) example.values.push_back(detail::row_view(a, index));
    return example;
}

}  // namespace rensa::training::datasets
