#include "training/datasets/sub_dataset.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/random.h"
#include "training/datasets/detail.h"

namespace rensa::training::datasets {
namespace {

IndexOrder share(std::optional<std::vector<int64_t>> order) {
    if (!order) return nullptr;
    return std::make_shared<const std::vector<int64_t>>(std::move(*order));
}

void check_order(const std::vector<int64_t>& order, int64_t n, const char* op) {
    for (size_t k = 0; k < order.size(); ++k) {
        RENSA_CHECK(order[k] >= 0 && order[k] < n, ValueError, op, ": order[", k, "] = ", order[k],
                    " is out of range for a dataset of size ", n);
    }
}

// A seed for the calls that got none: drawn from the global generator, so rensa::seed() fixes it.
uint64_t draw_seed(std::optional<uint64_t> seed) {
    if (seed) return *seed;
    const auto [key, counter] = global_generator().reserve(1);
    const auto words = philox4x32(key, counter);
    return (static_cast<uint64_t>(words[0]) << 32) | words[1];
}

}  // namespace

SubDataset::SubDataset(DatasetPtr dataset, int64_t start, int64_t finish, std::optional<std::vector<int64_t>> order)
    : SubDataset(std::move(dataset), start, finish, share(std::move(order))) {}

SubDataset::SubDataset(DatasetPtr dataset, int64_t start, int64_t finish, IndexOrder order)
    : dataset_{std::move(dataset)}, start_{start}, finish_{finish}, order_{std::move(order)} {
    RENSA_CHECK(dataset_ != nullptr, ValueError, "SubDataset: the base dataset is null");
    const int64_t n = dataset_->size();
    RENSA_CHECK(start >= 0 && start <= finish && finish <= n, ValueError, "SubDataset: [start, finish) = [", start,
                ", ", finish, ") overruns the base dataset of size ", n);
    if (order_) {
        RENSA_CHECK(static_cast<int64_t>(order_->size()) == n, ValueError,
                    "SubDataset: order must have the length of the base dataset: len(order) = ", order_->size(),
                    " while len(dataset) = ", n);
        check_order(*order_, n, "SubDataset");
    }
}

std::shared_ptr<SubDataset> SubDataset::from_indices(DatasetPtr dataset, std::vector<int64_t> indices) {
    RENSA_CHECK(dataset != nullptr, ValueError, "SubDataset: the base dataset is null");
    const int64_t n = dataset->size();
    for (size_t k = 0; k < indices.size(); ++k) {
        RENSA_CHECK(indices[k] >= 0 && indices[k] < n, IndexError, "SubDataset: indices[", k, "] = ", indices[k],
                    " is out of range for a dataset of size ", n);
    }
    auto sub = std::make_shared<SubDataset>(std::move(dataset), 0, 0);
    sub->finish_ = static_cast<int64_t>(indices.size());
    sub->order_ = std::make_shared<const std::vector<int64_t>>(std::move(indices));
    return sub;
}

int64_t SubDataset::base_index(int64_t i) const {
    const int64_t index = start_ + detail::normalize_index(i, size(), "SubDataset");
    return order_ ? (*order_)[static_cast<size_t>(index)] : index;
}

Example SubDataset::get_example(int64_t i) const { return dataset_->get_example(base_index(i)); }

std::vector<Example> SubDataset::get_examples(const std::vector<int64_t>& indices) const {
    std::vector<int64_t> mapped;
    mapped.reserve(indices.size());
    for (const int64_t i : indices) mapped.push_back(base_index(i));
    return dataset_->get_examples(mapped);
}

std::pair<DatasetPtr, DatasetPtr> split_dataset(DatasetPtr dataset, int64_t split_at,
                                                std::optional<std::vector<int64_t>> order) {
    RENSA_CHECK(dataset != nullptr, ValueError, "split_dataset: the dataset is null");
    const int64_t n = dataset->size();
    RENSA_CHECK(split_at >= 0, ValueError, "split_dataset: split_at must be non-negative, got ", split_at);
    RENSA_CHECK(split_at <= n, ValueError, "split_dataset: split_at = ", split_at, " exceeds the dataset size ", n);
    const IndexOrder shared = share(std::move(order));
    return {std::make_shared<SubDataset>(dataset, 0, split_at, shared),
            std::make_shared<SubDataset>(dataset, split_at, n, shared)};
}

std::pair<DatasetPtr, DatasetPtr> split_dataset_random(DatasetPtr dataset, int64_t first_size,
                                                       std::optional<uint64_t> seed) {
    RENSA_CHECK(dataset != nullptr, ValueError, "split_dataset_random: the dataset is null");
    const uint64_t key = draw_seed(seed);
    return split_dataset(dataset, first_size, philox_permutation(dataset->size(), key));
}

std::vector<std::pair<DatasetPtr, DatasetPtr>> get_cross_validation_datasets(
    DatasetPtr dataset, int64_t n_folds, std::optional<std::vector<int64_t>> order) {
    RENSA_CHECK(dataset != nullptr, ValueError, "get_cross_validation_datasets: the dataset is null");
    const int64_t n = dataset->size();
    RENSA_CHECK(n_folds >= 1 && n_folds <= n, ValueError, "get_cross_validation_datasets: n_folds = ", n_folds,
                " must be in [1, ", n, "] (the dataset size)");
    std::vector<int64_t> current(static_cast<size_t>(n));
    if (order) {
        RENSA_CHECK(static_cast<int64_t>(order->size()) == n, ValueError,
                    "get_cross_validation_datasets: len(order) = ", order->size(), " differs from len(dataset) = ", n);
        current = std::move(*order);
    } else {
        std::iota(current.begin(), current.end(), int64_t{0});
    }
    std::vector<std::pair<DatasetPtr, DatasetPtr>> splits;
    // Chainer's scheme: test on the last block of the order, then rotate the order right by
    // that block so that the next split tests the block before it.
    for (int64_t fold = n_folds - 1; fold >= 0; --fold) {
        const int64_t test_size = n * (fold + 1) / n_folds - n * fold / n_folds;
        splits.push_back(split_dataset(dataset, n - test_size, current));
        std::rotate(current.begin(), current.end() - test_size, current.end());
    }
    return splits;
}

std::vector<std::pair<DatasetPtr, DatasetPtr>> get_cross_validation_datasets_random(DatasetPtr dataset, int64_t n_folds,
                                                                                    std::optional<uint64_t> seed) {
    RENSA_CHECK(dataset != nullptr, ValueError, "get_cross_validation_datasets_random: the dataset is null");
    const uint64_t key = draw_seed(seed);
    return get_cross_validation_datasets(dataset, n_folds, philox_permutation(dataset->size(), key));
}

std::vector<int64_t> philox_permutation(int64_t n, uint64_t seed) {
    RENSA_CHECK(n >= 0, ValueError, "philox_permutation: n must be non-negative, got ", n);
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), int64_t{0});
    // Fisher-Yates; one Philox block per step, its 64 bits reduced modulo i + 1 (the bias is
    // below 2^-32 for any dataset that fits in memory).
    for (int64_t i = n - 1; i > 0; --i) {
        const auto words = philox4x32(seed, static_cast<uint64_t>(i));
        const uint64_t r = (static_cast<uint64_t>(words[0]) << 32) | words[1];
        std::swap(perm[static_cast<size_t>(i)], perm[r % static_cast<uint64_t>(i + 1)]);
    }
    return perm;
}

}  // namespace rensa::training::datasets
