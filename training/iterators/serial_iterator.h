#pragma once
// chainer.iterators.SerialIterator: batches in dataset order, or shuffled each epoch.
//
// Note [Iterator state machine]: as Chainer's iterator_statemachine, a batch takes
// batch_size indices from the current order; when it reaches the order's end the epoch
// counter moves on, the order sampler draws the next order (called at every epoch end,
// with or without repeat) and, with repeat, the batch continues in the new order (a
// batch can span epochs). Without repeat the last batch is short and the next one is
// nullopt. The state is (current_position, epoch, is_new_epoch, order).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "training/dataset.h"
#include "training/iterator.h"
#include "training/iterators/order_samplers.h"

namespace rensa::training::iterators {

struct SerialIteratorOptions {
    bool repeat = true;
    bool shuffle = true;  // ignored when order_sampler is given (Chainer: shuffle=None)
    std::shared_ptr<OrderSampler> order_sampler = nullptr;
};

// Where an iterator stands (Chainer's IteratorState).
struct IteratorState {
    int64_t current_position = 0;
    int64_t epoch = 0;
    bool is_new_epoch = false;
    std::optional<std::vector<int64_t>> order;  // nullopt: dataset order (no sampler)
};

// Copies share the order sampler (a shared_ptr), so their future orders are coupled.
class SerialIterator : public Iterator {
public:
    // ValueError for a null dataset, batch_size < 1 and an empty dataset with repeat.
    SerialIterator(DatasetPtr dataset, int64_t batch_size, SerialIteratorOptions options = {});

    // The examples come from one dataset->get_examples(indices) call per batch. A failing
    // fetch propagates its exception; the batch counts as consumed (as in Chainer).
    // An empty dataset (repeat off) gives no batch at all.
    std::optional<std::vector<Example>> next() override;
    int64_t batch_size() const override { return batch_size_; }
    bool repeat() const override { return options_.repeat; }
    int64_t epoch() const override { return state_.epoch; }
    double epoch_detail() const override;
    std::optional<double> previous_epoch_detail() const override;
    bool is_new_epoch() const override { return state_.is_new_epoch; }
    // Epoch 0, position 0; with a sampler, a new order drawn from it.
    void reset() override;
    // "current_position", "epoch", "is_new_epoch", "order" (when shuffling),
    // "previous_epoch_detail" as Chainer, plus "order_sampler/..." (the sampler's state).
    // Loading checks everything first (ValueError for a position or epoch out of range,
    // an order of the wrong length, out of range or, when the current one is, not a
    // permutation) and changes nothing on error. A file without "order" but with Chainer's
    // older "_order" loads too.
    void serialize(const serializers::Serializer& serializer) override;

    const DatasetPtr& dataset() const { return dataset_; }
    // The sampler in use; null when iterating in dataset order.
    const std::shared_ptr<OrderSampler>& order_sampler() const { return options_.order_sampler; }
    // The order of the current epoch; nullopt in dataset order.
    const std::optional<std::vector<int64_t>>& order() const { return state_.order; }
    int64_t current_position() const { return state_.current_position; }

protected:
    // One step of the state machine (See Note [Iterator state machine]): moves `state`
    // past the next batch and returns its indices; nullopt when repeat is off and the
    // epoch is over. ValueError when the sampler changes the order's length.
    std::optional<std::vector<int64_t>> advance(IteratorState& state) const;
    // Whether advance(state) will call the order sampler (the batch reaches the epoch end).
    bool advance_draws_order(const IteratorState& state) const;
    // Makes `next` the current state, remembering epoch_detail() as the previous one.
    void commit(IteratorState next);
    // The indices of the next batch, committing the step (advance + commit).
    std::optional<std::vector<int64_t>> next_indices();
    const IteratorState& state() const { return state_; }
    // The examples of `indices` (dataset->get_examples).
    std::vector<Example> fetch(const std::vector<int64_t>& indices) const;

private:
    // Loads and checks the counters and the order; queues their assignment.
    void load_state(const serializers::Serializer& serializer);
    void check_loaded_order(const std::vector<int64_t>& order) const;

    DatasetPtr dataset_;
    int64_t batch_size_;
    SerialIteratorOptions options_;
    IteratorState state_;
    double previous_epoch_detail_ = -1.0;  // < 0: none yet (Chainer's None)
};

}  // namespace rensa::training::iterators
