#pragma once
// chainermn.scatter_dataset / scatter_index: each rank gets a contiguous shard of a dataset
// (optionally of a shuffled index list, the same permutation on every rank).
//
// Note [Epoch ends over shards]: ranks must run the same number of iterations per epoch,
// or epoch triggers (evaluators, snapshots, the stop trigger) fire at different iterations
// and the collectives they issue wait forever. Two ways are offered:
//   (a) equal length (ChainerMN's default, force_equal_length=true): every shard has
//       ceil(n / size) examples (the last shards overlap their neighbours, so a few examples
//       are seen twice per epoch). With the same batch size every rank's SerialIterator then
//       ends its epochs at the same iteration: nothing else to do.
//   (b) join (force_equal_length=false: no example duplicated, shards differ by one): wrap
//       each shard in a JoinIterator. It agrees on iterations_per_epoch (the max over ranks
//       of ceil(len / batch_size)) and, once its shard is used up, hands out padding batches
//       (the shard's first examples) until the epoch's last iteration. Pass the loss through
//       join_loss_func: a padding batch's loss is multiplied by 0 (its grads are zero but the
//       gradient all-reduce still happens, as PyTorch DDP's Join) and its reports are dropped.
//       The mean over ranks still divides by size, so in the epoch's last steps the gradient
//       is scaled by (ranks with data) / size; the padding forward also updates running
//       statistics (BatchNormalization) with already-seen examples.
// For evaluation neither is needed: the multi-node evaluator weighs each rank by its sample
// count and reduces once after the pass, so uneven shards (force_equal_length=false) give
// the exact single-process value.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "distributed/communicator.h"
#include "links/link.h"
#include "training/dataset.h"
#include "training/iterator.h"
#include "training/iterators/serial_iterator.h"
#include "training/updaters/standard_updater.h"

namespace rensa::distributed {

// Chainer's keyword arguments of scatter_dataset (max_buf_len is not needed: the object
// collectives chunk by themselves).
struct ScatterDatasetOptions {
    bool shuffle = false;  // shard a Philox permutation of the indices (seeded by root's seed)
    uint64_t seed = 0;
    int root = 0;  // the rank whose dataset, size and seed count
    // true: every shard has ceil(n/size) examples (neighbours overlap); false: no example is
    // duplicated, the first n % size ranks get one more. See Note [Epoch ends over shards].
    bool force_equal_length = true;
};

// This rank's part of [0, n): positions [begin, end) of the (maybe shuffled) index list,
// and the dataset indices at those positions.
struct IndexShard {
    int64_t begin = 0;
    int64_t end = 0;
    std::vector<int64_t> indices;
    int64_t size() const { return end - begin; }
};

// chainermn.scatter_index: root's n_total (and seed) count; the other ranks' are ignored.
// Collective. ValueError (on every rank) for a root outside [0, size) or a negative n_total.
[[nodiscard]] IndexShard scatter_index(int64_t n_total, const CommunicatorPtr& comm,
                                       const ScatterDatasetOptions& options = {});

// chainermn.scatter_dataset. Collective. When every rank passes a dataset of root's length,
// each rank keeps a view of its shard (SubDataset: no data moves). Otherwise root's dataset
// counts (the others may pass nullptr): root keeps a view of its shard and sends each other
// rank its shard as one stacked array per field (plus the keys), which that rank serves as
// views; when the fields' shapes or dtypes differ between examples (or a value is undefined
// or empty), the examples one by one instead. ValueError on every rank when root has no
// dataset, or when every rank has one but the lengths differ (naming them).
[[nodiscard]] training::DatasetPtr scatter_dataset(const training::DatasetPtr& dataset, const CommunicatorPtr& comm,
                                                   const ScatterDatasetOptions& options = {});

// The number of iterations per epoch every rank agrees on: max over ranks of
// ceil(shard_len / batch_size). Collective. ValueError for batch_size < 1 or shard_len < 0.
[[nodiscard]] int64_t iterations_per_epoch(int64_t shard_len, int64_t batch_size, Communicator& comm);

// Options of JoinIterator (SerialIterator's, without repeat's effect on the epoch length).
struct JoinIteratorOptions {
    bool repeat = true;
    bool shuffle = true;  // shuffles the local shard each epoch (ignored with an order_sampler)
    std::shared_ptr<training::OrderSampler> order_sampler = nullptr;
};

// The join-style epoch end of Note [Epoch ends over shards] (b): a SerialIterator over the
// local shard whose epochs are iterations_per_epoch() batches long on every rank; after the
// shard is used up it returns padding batches (is_padding() true). Without repeat it stops
// after one such epoch. Construction is collective (it agrees on the length and checks that
// no rank with an empty shard would need padding: ValueError on every rank naming it).
class JoinIterator final : public training::Iterator {
public:
    JoinIterator(training::DatasetPtr shard, int64_t batch_size, const CommunicatorPtr& comm,
                 JoinIteratorOptions options = {});

    std::optional<std::vector<training::Example>> next() override;
    int64_t batch_size() const override { return inner_->batch_size(); }
    bool repeat() const override { return repeat_; }
    int64_t epoch() const override { return epoch_; }
    double epoch_detail() const override;
    std::optional<double> previous_epoch_detail() const override;
    bool is_new_epoch() const override { return is_new_epoch_; }
    void reset() override;
    // "position", "epoch", "is_new_epoch", "previous_epoch_detail", "iterations_per_epoch"
    // and the local iterator under "inner/". Loading a file written with another
    // iterations_per_epoch is a ValueError.
    void serialize(const serializers::Serializer& serializer) override;

    // True when the last next() returned a padding batch (its loss must weigh 0).
    bool is_padding() const { return padding_; }
    int64_t iterations_per_epoch() const { return iterations_per_epoch_; }

private:
    std::vector<training::Example> padding_batch() const;

    training::DatasetPtr shard_;
    std::shared_ptr<training::iterators::SerialIterator> inner_;
    bool repeat_;
    int64_t iterations_per_epoch_;
    int64_t position_ = 0;  // batches handed out in the current epoch
    int64_t epoch_ = 0;
    bool is_new_epoch_ = false;
    bool padding_ = false;
    double previous_epoch_detail_ = -1.0;  // < 0: none yet
};

// A StandardUpdater loss function for a JoinIterator: `loss` as is for real batches; for a
// padding batch, `loss` * 0 with its reports dropped (so LogReport's means see real batches
// only). `loss` null: the target's forward (one input: forward(x), several: forward(xs)).
[[nodiscard]] training::updaters::LossFunction join_loss_func(std::shared_ptr<JoinIterator> iterator,
                                                              training::updaters::LossFunction loss);
[[nodiscard]] training::updaters::LossFunction join_loss_func(std::shared_ptr<JoinIterator> iterator,
                                                              std::shared_ptr<links::Link> target);

namespace detail {

// [begin, end) of rank `rank`'s shard of n examples over `size` ranks (ChainerMN's
// _scatter_index).
[[nodiscard]] std::pair<int64_t, int64_t> shard_range(int64_t n, int size, int rank, bool force_equal_length);
// Examples to bytes and back (dtype, shape, keys and data of every array).
[[nodiscard]] std::string serialize_examples(const std::vector<training::Example>& examples);
[[nodiscard]] std::vector<training::Example> deserialize_examples(const std::string& bytes);

}  // namespace detail

}  // namespace rensa::distributed
