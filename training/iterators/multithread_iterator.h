#pragma once
// chainer.iterators.MultithreadIterator: SerialIterator's batches, fetched on a small
// thread pool one batch ahead of the caller.
//
// Note [Prefetch and the order sampler]: the state machine runs on the caller's thread;
// only get_examples runs on the pool. A prefetch never calls the order sampler: a batch
// that reaches the epoch end is fetched when asked for (still split over the pool). So
// the sampler is never ahead of the batches handed out, serialize saves exactly what a
// SerialIterator would, and the same seed gives the same batches as a SerialIterator.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "training/iterators/serial_iterator.h"

namespace rensa::training::iterators {

namespace detail {
class ThreadPool;
}

struct MultithreadIteratorOptions {
    bool repeat = true;
    bool shuffle = true;  // ignored when order_sampler is given (Chainer: shuffle=None)
    std::shared_ptr<OrderSampler> order_sampler = nullptr;
    int n_threads = 2;  // threads fetching a batch (each gets a contiguous slice of it)
};

class MultithreadIterator final : public SerialIterator {
public:
    // ValueError as SerialIterator, and for n_threads < 1. Threads start at the first next().
    MultithreadIterator(DatasetPtr dataset, int64_t batch_size, MultithreadIteratorOptions options = {});
    // finalize(): waits only for the get_examples calls already running.
    ~MultithreadIterator() override;
    MultithreadIterator(const MultithreadIterator&) = delete;
    MultithreadIterator& operator=(const MultithreadIterator&) = delete;

    // As SerialIterator::next; an exception thrown by the dataset on a worker is rethrown
    // here (that batch counts as consumed, as in Chainer).
    std::optional<std::vector<Example>> next() override;
    // SerialIterator::reset, discarding prefetched work.
    void reset() override;
    // Discards prefetched work and stops the threads; a later next() starts them again.
    void finalize() override;
    // SerialIterator's keys; loading discards prefetched work (after the walk passed).
    void serialize(const serializers::Serializer& serializer) override;

    int n_threads() const { return n_threads_; }

private:
    struct Prefetch;

    // The step after the current state with its fetch started on the pool.
    [[nodiscard]] std::unique_ptr<Prefetch> start_next();
    // The fetched examples of `prefetch`, in order; rethrows a worker's exception.
    [[nodiscard]] static std::vector<Example> gather(Prefetch& prefetch);
    void discard_prefetch();

    int n_threads_;
    std::unique_ptr<detail::ThreadPool> pool_;
    std::unique_ptr<Prefetch> prefetch_;
};

}  // namespace rensa::training::iterators
