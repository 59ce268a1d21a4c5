#include "training/dataset.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "training/datasets/sub_dataset.h"

namespace rensa::training {

const Array& Example::operator[](size_t i) const {
    RENSA_CHECK(i < values.size(), IndexError, "Example: index ", i, " is out of range for an example of ",
                values.size(), " values");
    return values[i];
}

const Array& Example::operator[](std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] == key) return values[i];
    }
    std::ostringstream present;
    for (const std::string& k : keys) present << (present.tellp() > 0 ? ", " : "") << "'" << k << "'";
    RENSA_THROW(KeyError, "Example: no key '", key, "' ",
                keys.empty() ? std::string{"(the example is a tuple, not a dict)"} : "(keys: " + present.str() + ")");
}

std::vector<Example> Dataset::get_examples(const std::vector<int64_t>& indices) const {
    std::vector<Example> examples;
    examples.reserve(indices.size());
    for (const int64_t i : indices) examples.push_back(get_example(i));
    return examples;
}

namespace {

// Python's slice.indices(n): the first index and the count of dataset[start:stop:step].
std::pair<int64_t, int64_t> slice_range(int64_t n, std::optional<int64_t> start, std::optional<int64_t> stop,
                                        int64_t step) {
    const auto clamp = [n, step](int64_t bound) {
        if (bound < 0) bound += n;
        if (step > 0) return std::clamp<int64_t>(bound, 0, n);
        return std::clamp<int64_t>(bound, -1, n - 1);
    };
    const int64_t first = start ? clamp(*start) : (step > 0 ? 0 : n - 1);
    const int64_t last = stop ? clamp(*stop) : (step > 0 ? n : -1);
    const int64_t span = step > 0 ? last - first : first - last;
    const int64_t abs_step = step > 0 ? step : -step;
    return {first, span <= 0 ? 0 : (span + abs_step - 1) / abs_step};
}

}  // namespace

DatasetPtr slice(DatasetPtr dataset, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
    RENSA_CHECK(dataset != nullptr, ValueError, "slice: the dataset is null");
    RENSA_CHECK(step != 0, ValueError, "slice: step must not be zero");
    const auto [first, count] = slice_range(dataset->size(), start, stop, step);
    if (step == 1) return std::make_shared<datasets::SubDataset>(std::move(dataset), first, first + count);
    std::vector<int64_t> indices(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) indices[static_cast<size_t>(k)] = first + k * step;
    return datasets::SubDataset::from_indices(std::move(dataset), std::move(indices));
}

}  // namespace rensa::training
