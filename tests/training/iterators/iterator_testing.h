#pragma once
// Helpers for the iterator tests: a dataset whose example i is the 0-d int64 array i
// (optionally slow or failing at chosen indices) and batch-to-index conversion; the
// temporary folder comes from training_testing.h.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "tests/training/training_testing.h"
#include "training/dataset.h"
#include "training/iterator.h"

namespace rensa::testing {

class IndexDataset final : public training::Dataset {
public:
    explicit IndexDataset(int64_t size, std::set<int64_t> failing = {}, std::chrono::milliseconds delay = {})
        : size_{size}, failing_{std::move(failing)}, delay_{delay} {}
    int64_t size() const override { return size_; }
    training::Example get_example(int64_t i) const override {
        RENSA_CHECK(i >= 0 && i < size_, IndexError, "IndexDataset: index ", i, " out of range");
        if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
        RENSA_CHECK(!failing_.count(i), IOError, "IndexDataset: example ", i, " fails");
        ++examples_read;
        return {.values = {Array::from_vector<int64_t>({i}, Shape{})}, .keys = {}};
    }
    std::vector<training::Example> get_examples(const std::vector<int64_t>& indices) const override {
        ++calls;
        return Dataset::get_examples(indices);
    }
    mutable std::atomic<int64_t> calls{0};
    mutable std::atomic<int64_t> examples_read{0};

private:
    int64_t size_;
    std::set<int64_t> failing_;
    std::chrono::milliseconds delay_;
};

// The index each example of `batch` holds.
inline std::vector<int64_t> batch_indices(const std::vector<training::Example>& batch) {
    std::vector<int64_t> out;
    for (const training::Example& example : batch) out.push_back(example[0].item<int64_t>());
    return out;
}

// The indices of the next `count` batches (an empty vector for each nullopt).
inline std::vector<std::vector<int64_t>> take_batches(training::Iterator& it, int count) {
    std::vector<std::vector<int64_t>> out;
    for (int k = 0; k < count; ++k) {
        const auto batch = it.next();
        out.push_back(batch ? batch_indices(*batch) : std::vector<int64_t>{});
    }
    return out;
}

}  // namespace rensa::testing
