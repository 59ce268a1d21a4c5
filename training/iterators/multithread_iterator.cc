#include "training/iterators/multithread_iterator.h"

#include <algorithm>
#include <future>
#include <iterator>
#include <utility>

#include "core/error.h"
#include "training/iterators/thread_pool.h"

namespace rensa::training::iterators {
namespace {

SerialIteratorOptions serial_options(const MultithreadIteratorOptions& options) {
    return {.repeat = options.repeat, .shuffle = options.shuffle, .order_sampler = options.order_sampler};
}

}  // namespace

struct MultithreadIterator::Prefetch {
    IteratorState next_state;
    std::optional<std::vector<int64_t>> indices;  // nullopt: the iteration is over
    std::vector<std::future<std::vector<Example>>> parts;
};

MultithreadIterator::MultithreadIterator(DatasetPtr dataset, int64_t batch_size, MultithreadIteratorOptions options)
    : SerialIterator{std::move(dataset), batch_size, serial_options(options)}, n_threads_{options.n_threads} {
    RENSA_CHECK(n_threads_ >= 1, ValueError, "MultithreadIterator: n_threads must be at least 1, got ", n_threads_);
}

MultithreadIterator::~MultithreadIterator() { finalize(); }

std::unique_ptr<MultithreadIterator::Prefetch> MultithreadIterator::start_next() {
    auto prefetch = std::make_unique<Prefetch>();
    prefetch->next_state = state();
    prefetch->indices = advance(prefetch->next_state);
    if (!prefetch->indices || prefetch->indices->empty()) return prefetch;
    if (!pool_) pool_ = std::make_unique<detail::ThreadPool>(n_threads_);
    // Contiguous slices, one get_examples call each, so datasets can still gather fast.
    const std::vector<int64_t>& indices = *prefetch->indices;
    const auto n = static_cast<int64_t>(indices.size());
    const int64_t chunk = (n + n_threads_ - 1) / n_threads_;
    for (int64_t begin = 0; begin < n; begin += chunk) {
        std::vector<int64_t> part(indices.begin() + begin, indices.begin() + std::min(n, begin + chunk));
        prefetch->parts.push_back(
            pool_->submit([dataset = dataset(), part = std::move(part)] { return dataset->get_examples(part); }));
    }
    return prefetch;
}

std::vector<Example> MultithreadIterator::gather(Prefetch& prefetch) {
    std::vector<Example> batch;
    batch.reserve(prefetch.indices->size());
    for (std::future<std::vector<Example>>& part : prefetch.parts) {
        std::vector<Example> examples = part.get();
        std::move(examples.begin(), examples.end(), std::back_inserter(batch));
    }
    return batch;
}

std::optional<std::vector<Example>> MultithreadIterator::next() {
    std::unique_ptr<Prefetch> current = prefetch_ ? std::move(prefetch_) : start_next();
    commit(std::move(current->next_state));
    if (!current->indices || current->indices->empty()) return std::nullopt;
    // Prefetch before waiting, so the pool works on both batches; never across an epoch
    // end (See Note [Prefetch and the order sampler]).
    if (!advance_draws_order(state())) prefetch_ = start_next();
    return gather(*current);
}

void MultithreadIterator::discard_prefetch() {
    prefetch_.reset();
    if (pool_) pool_->cancel_queued();
}

void MultithreadIterator::reset() {
    discard_prefetch();
    SerialIterator::reset();
}

void MultithreadIterator::finalize() {
    discard_prefetch();
    pool_.reset();
}

void MultithreadIterator::serialize(const serializers::Serializer& serializer) {
    SerialIterator::serialize(serializer);
    if (serializer.is_loading()) serializer.backend().defer([this] { discard_prefetch(); });
}

}  // namespace rensa::training::iterators
