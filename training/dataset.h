#pragma once
// chainer.dataset: the example type and the dataset interface every dataset, iterator
// and converter shares.
//
// An Example is Chainer's tuple `(x, t)` (keys empty) or dict `{"x": ..., "t": ...}`
// (one key per value, DictDataset). A single-array dataset (get_mnist(withlabel=false))
// gives 1-tuples. A converted batch (concat_examples) is an Example too, each array with
// the batch axis first.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/array.h"

namespace rensa::training {

struct Example {
    std::vector<Array> values;
    std::vector<std::string> keys;  // empty for a tuple; else keys[i] names values[i]

    size_t size() const { return values.size(); }
    bool is_dict() const { return !keys.empty(); }
    // values[i]; IndexError naming i and the size.
    const Array& operator[](size_t i) const;
    // The value under `key`; KeyError naming the key and the keys present (and for a tuple).
    const Array& operator[](std::string_view key) const;
};

// chainer.dataset.DatasetMixin. get_example must be safe to call from several threads
// at once (MultithreadIterator prefetches on threads); the datasets here only read.
class Dataset {
public:
    virtual ~Dataset() = default;
    virtual int64_t size() const = 0;
    // The i-th example; a negative i counts from the end; IndexError outside [-size, size).
    // The arrays may alias the dataset's storage (views): treat them as read-only.
    virtual Example get_example(int64_t i) const = 0;
    // Several examples at once (what an iterator asks for); the default calls
    // get_example for each. Datasets that can gather faster override it.
    virtual std::vector<Example> get_examples(const std::vector<int64_t>& indices) const;
};

using DatasetPtr = std::shared_ptr<const Dataset>;

// dataset[start:stop:step] with Python's slice semantics (negative and missing bounds),
// as a SubDataset view; ValueError for step 0.
[[nodiscard]] DatasetPtr slice(DatasetPtr dataset, std::optional<int64_t> start, std::optional<int64_t> stop,
                               int64_t step = 1);

}  // namespace rensa::training
