#include "training/iterators/serial_iterator.h"

#include <exception>
#include <numeric>
#include <utility>

#include "core/error.h"

namespace rensa::training::iterators {
namespace {

using serializers::Serializer;

int64_t epoch_size(const IteratorState& state, const Dataset& dataset) {
    return state.order ? static_cast<int64_t>(state.order->size()) : dataset.size();
}

// Whether `order` holds each of 0 .. size-1 exactly once.
bool is_permutation_of(const std::vector<int64_t>& order, int64_t size) {
    if (static_cast<int64_t>(order.size()) != size) return false;
    std::vector<bool> seen(order.size(), false);
    for (const int64_t i : order) {
        if (i < 0 || i >= size || seen[static_cast<size_t>(i)]) return false;
        seen[static_cast<size_t>(i)] = true;
    }
    return true;
}

// The stored 0-d value under `key` as T: nullopt when absent (non-strict), `none` for
// Chainer's None.
template <class T>
std::optional<T> load_scalar(const Serializer& serializer, std::string_view key, Dtype dtype,
                             std::optional<T> none = std::nullopt) {
    const std::optional<Array> stored = serializer.backend().load(serializer.key(key), dtype, Shape{});
    if (!stored) return std::nullopt;
    if (!stored->defined()) return none;
    return stored->item<T>();
}

// The stored order: "order", or Chainer's older "_order" when only that one is present.
std::optional<Array> load_order_array(const Serializer& serializer) {
    std::exception_ptr missing;
    try {
        return serializer.backend().load(serializer.key("order"), Dtype::kInt64, std::nullopt);
    } catch (const KeyError&) {
        missing = std::current_exception();
    }
    try {
        return serializer.backend().load(serializer.key("_order"), Dtype::kInt64, std::nullopt);
    } catch (const KeyError&) {
        std::rethrow_exception(missing);
    }
}

}  // namespace

SerialIterator::SerialIterator(DatasetPtr dataset, int64_t batch_size, SerialIteratorOptions options)
    : dataset_{std::move(dataset)}, batch_size_{batch_size}, options_{std::move(options)} {
    RENSA_CHECK(dataset_ != nullptr, ValueError, "SerialIterator: the dataset is null");
    RENSA_CHECK(batch_size_ >= 1, ValueError, "SerialIterator: batch_size must be at least 1, got ", batch_size_);
    RENSA_CHECK(!options_.repeat || dataset_->size() > 0, ValueError,
                "SerialIterator: the dataset is empty; an iterator that repeats needs at least one example");
    if (!options_.order_sampler && options_.shuffle) options_.order_sampler = std::make_shared<ShuffleOrderSampler>();
    reset();
}

std::optional<std::vector<int64_t>> SerialIterator::advance(IteratorState& state) const {
    if (!options_.repeat && state.epoch > 0) return std::nullopt;
    const int64_t n = epoch_size(state, *dataset_);
    RENSA_CHECK(!options_.repeat || n > 0, ValueError,
                "SerialIterator: the epoch size must be positive for an iterator that repeats");
    std::vector<int64_t> indices;
    indices.reserve(static_cast<size_t>(batch_size_));
    const auto append = [&](int64_t from, int64_t to) {
        for (int64_t k = from; k < to; ++k) indices.push_back(state.order ? (*state.order)[static_cast<size_t>(k)] : k);
    };
    int64_t i = state.current_position;
    int64_t i_end = i + batch_size_;
    bool is_new_epoch = false;
    while (i_end >= n) {
        append(i, n);
        if (state.order) {
            std::vector<int64_t> next_order = (*options_.order_sampler)(*state.order, i);
            RENSA_CHECK(next_order.size() == state.order->size(), ValueError,
                        "SerialIterator: the order sampler returned an order of size ", next_order.size(),
                        "; the previous order has size ", state.order->size());
            state.order = std::move(next_order);
        }
        ++state.epoch;
        is_new_epoch = true;
        i = 0;
        if (!options_.repeat) {
            i_end = 0;
            break;  // also ends the loop when n == 0
        }
        i_end -= n;
    }
    append(i, i_end);
    state.current_position = i_end;
    state.is_new_epoch = is_new_epoch;
    return indices;
}

bool SerialIterator::advance_draws_order(const IteratorState& state) const {
    if (!state.order || (!options_.repeat && state.epoch > 0)) return false;
    return state.current_position + batch_size_ >= static_cast<int64_t>(state.order->size());
}

void SerialIterator::commit(IteratorState next) {
    previous_epoch_detail_ = epoch_detail();
    state_ = std::move(next);
}

std::optional<std::vector<int64_t>> SerialIterator::next_indices() {
    IteratorState next = state_;
    std::optional<std::vector<int64_t>> indices = advance(next);
    commit(std::move(next));
    return indices;
}

std::vector<Example> SerialIterator::fetch(const std::vector<int64_t>& indices) const {
    return dataset_->get_examples(indices);
}

std::optional<std::vector<Example>> SerialIterator::next() {
    const std::optional<std::vector<int64_t>> indices = next_indices();
    if (!indices || indices->empty()) return std::nullopt;
    return fetch(*indices);
}

double SerialIterator::epoch_detail() const {
    const int64_t n = epoch_size(state_, *dataset_);
    if (n == 0) return static_cast<double>(state_.epoch);
    return static_cast<double>(state_.epoch) + static_cast<double>(state_.current_position) / static_cast<double>(n);
}

std::optional<double> SerialIterator::previous_epoch_detail() const {
    if (previous_epoch_detail_ < 0) return std::nullopt;
    return previous_epoch_detail_;
}

void SerialIterator::reset() {
    IteratorState fresh;
    if (options_.order_sampler) {
        std::vector<int64_t> all(static_cast<size_t>(dataset_->size()));
        std::iota(all.begin(), all.end(), int64_t{0});
        fresh.order = (*options_.order_sampler)(all, 0);
    }
    state_ = std::move(fresh);
    previous_epoch_detail_ = -1.0;
}

void SerialIterator::serialize(const serializers::Serializer& serializer) {
    if (serializer.is_loading()) return load_state(serializer);
    int64_t position = state_.current_position;
    int64_t epoch = state_.epoch;
    bool is_new_epoch = state_.is_new_epoch;
    double previous = previous_epoch_detail_;
    serializer("current_position", position);
    serializer("epoch", epoch);
    serializer("is_new_epoch", is_new_epoch);
    if (state_.order) {
        const auto n = static_cast<int64_t>(state_.order->size());
        serializer("order", Array::from_vector<int64_t>(*state_.order, Shape{n}));
    }
    serializer("previous_epoch_detail", previous);
    if (options_.order_sampler) options_.order_sampler->serialize(serializer["order_sampler"]);
}

void SerialIterator::load_state(const serializers::Serializer& serializer) {
    IteratorState loaded = state_;
    loaded.current_position =
        load_scalar<int64_t>(serializer, "current_position", Dtype::kInt64).value_or(state_.current_position);
    loaded.epoch = load_scalar<int64_t>(serializer, "epoch", Dtype::kInt64).value_or(state_.epoch);
    loaded.is_new_epoch = load_scalar<bool>(serializer, "is_new_epoch", Dtype::kBool).value_or(state_.is_new_epoch);
    if (state_.order) {
        const std::optional<Array> stored = load_order_array(serializer);
        if (stored && stored->defined()) {
            RENSA_CHECK(stored->ndim() == 1, ValueError, "SerialIterator: key '", serializer.key("order"),
                        "' holds an array of ", stored->ndim(), " dimensions; expected a 1-d order");
            loaded.order = stored->to_vector<int64_t>();
            check_loaded_order(*loaded.order);
        }
    }
    const double previous = load_scalar<double>(serializer, "previous_epoch_detail", Dtype::kFloat64, -1.0)
                                .value_or(previous_epoch_detail_);
    const int64_t n = epoch_size(loaded, *dataset_);
    RENSA_CHECK(loaded.epoch >= 0, ValueError, "SerialIterator: loaded epoch ", loaded.epoch, " is negative");
    RENSA_CHECK(loaded.current_position >= 0 && loaded.current_position <= n, ValueError,
                "SerialIterator: loaded current_position ", loaded.current_position, " is outside [0, ", n,
                "] (the epoch size)");
    if (options_.order_sampler) options_.order_sampler->serialize(serializer["order_sampler"]);
    serializer.backend().defer([this, loaded = std::move(loaded), previous]() mutable {
        state_ = std::move(loaded);
        previous_epoch_detail_ = previous;
    });
}

void SerialIterator::check_loaded_order(const std::vector<int64_t>& order) const {
    const std::vector<int64_t>& current = *state_.order;
    const int64_t size = dataset_->size();
    RENSA_CHECK(order.size() == current.size(), ValueError, "SerialIterator: the loaded order has ", order.size(),
                " indices; this iterator's order has ", current.size());
    for (const int64_t i : order) {
        RENSA_CHECK(i >= 0 && i < size, ValueError, "SerialIterator: the loaded order holds index ", i,
                    ", outside the dataset's [0, ", size, ")");
    }
    RENSA_CHECK(!is_permutation_of(current, size) || is_permutation_of(order, size), ValueError,
                "SerialIterator: the loaded order is not a permutation of [0, ", size, ") (an index repeats)");
}

}  // namespace rensa::training::iterators
