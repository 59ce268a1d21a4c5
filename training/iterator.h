#pragma once
// chainer.dataset.Iterator: hands out batches (lists of examples) and tracks epochs.
//
// Chainer raises StopIteration when a non-repeating iterator is exhausted; here next()
// returns nullopt, so an evaluation loop reads
//   while (auto batch = it.next()) { ... }

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "serializers/serializer.h"
#include "training/dataset.h"

namespace rensa::training {

class Iterator {
public:
    virtual ~Iterator() = default;

    // The next batch, or nullopt when repeat is off and the epoch is over.
    virtual std::optional<std::vector<Example>> next() = 0;

    virtual int64_t batch_size() const = 0;
    virtual bool repeat() const = 0;
    // Completed epochs.
    virtual int64_t epoch() const = 0;
    // Epochs done so far as a fraction (epoch + position / dataset size).
    virtual double epoch_detail() const = 0;
    // epoch_detail before the last next(); nullopt before the first next().
    virtual std::optional<double> previous_epoch_detail() const = 0;
    // True right after the next() that finished an epoch.
    virtual bool is_new_epoch() const = 0;

    // Back to the state of a fresh iterator (epoch 0, position 0); a shuffling iterator
    // draws a new order.
    virtual void reset() = 0;
    // Stops background work (MultithreadIterator's threads); a no-op for others.
    virtual void finalize() {}
    // Position, epoch counters and order state, so that a resumed run continues with the
    // batches an uninterrupted one would have seen.
    virtual void serialize(const serializers::Serializer& serializer) = 0;
};

using IteratorPtr = std::shared_ptr<Iterator>;

// chainer.iterators.OrderSampler: the order of the next epoch's examples.
class OrderSampler {
public:
    virtual ~OrderSampler() = default;
    // A permutation of [0, dataset_size) (or any index list), given the order in use
    // (empty before the first epoch) and the position reached in it.
    virtual std::vector<int64_t> operator()(const std::vector<int64_t>& current_order, int64_t current_position) = 0;
    // The sampler's random state (a shuffling sampler's seed and counter).
    virtual void serialize(const serializers::Serializer& serializer) { (void)serializer; }
};

}  // namespace rensa::training
