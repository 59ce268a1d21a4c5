#include "training/datasets/tuple_dataset.h"

#include <sstream>

#include "core/error.h"
#include "training/datasets/detail.h"

namespace rensa::training::datasets {

TupleDataset::TupleDataset(std::vector<Array> arrays) : arrays_{std::move(arrays)} {
    RENSA_CHECK(!arrays_.empty(), ValueError, "TupleDataset: no arrays are given");
    for (size_t k = 0; k < arrays_.size(); ++k) {
        RENSA_CHECK(arrays_[k].defined() && arrays_[k].ndim() >= 1, DimensionError, "TupleDataset: array ", k,
                    " must have at least one dimension (the example axis)");
    }
    for (size_t k = 1; k < arrays_.size(); ++k) {
        if (arrays_[k].shape()[0] == arrays_[0].shape()[0]) continue;
        std::ostringstream lengths;
        for (size_t j = 0; j < arrays_.size(); ++j) lengths << (j ? ", " : "") << arrays_[j].shape()[0];
        RENSA_THROW(ValueError, "TupleDataset: array ", k, " has a wrong length ", arrays_[k].shape()[0],
                    " (lengths: ", lengths.str(), ")");
    }
}

int64_t TupleDataset::size() const { return arrays_[0].shape()[0]; }

Example TupleDataset::get_example(int64_t i) const {
    const int64_t index = detail::normalize_index(i, size(), "TupleDataset");
    Example example;
    example.values.reserve(arrays_.size());
    for (const Array& a : arrays_) example.values.push_back(detail::row_view(a, index));
    return example;
}

}  // namespace rensa::training::datasets
