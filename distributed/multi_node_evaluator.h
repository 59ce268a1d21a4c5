#pragma once
// chainermn.create_multi_node_evaluator: an Evaluator decorator whose evaluate() returns the
// same metrics on every rank, computed over the union of the ranks' validation shards.
//
// Note [Exact multi-node evaluation]: ChainerMN averages each rank's mean, which is off when
// shards differ in length. Here each rank runs the pass itself (as Evaluator::evaluate does:
// reset iterator, config.train=false, no backprop, one reporter scope per batch) and keeps,
// per key, sum(batch value * batch size) and the number of examples of the batches that
// reported it. The ranks then agree on the union of the keys (sorted) and all-reduce the sums
// and counts in one float64 array, so a rank with an empty shard, or a key only some ranks
// reported, issues the same collectives. Each metric is thus the per-example mean over the
// whole dataset: the single-process Evaluator's value when its batches are all the same size
// (e.g. the whole dataset in one batch); with a short last batch that one instead weighs
// every batch the same.
// An `actual` whose class derives from Evaluator (a custom evaluate()) is called as is, and
// its per-rank means are averaged with equal weights (ChainerMN's behaviour).

#include <memory>
#include <string>

#include "distributed/communicator.h"
#include "training/extensions/evaluator.h"

namespace rensa::distributed {

class MultiNodeEvaluator : public training::extensions::Evaluator {
public:
    // ValueError for a null actual or comm.
    MultiNodeEvaluator(std::shared_ptr<training::extensions::Evaluator> actual, CommunicatorPtr comm);

    // Collective (See Note [Exact multi-node evaluation]): the global metrics as 0-d float64
    // arrays, identical on every rank. Keys no rank reported are absent.
    Observation evaluate() override;

    // The actual evaluator's name ("validation" or the name it was given), trigger and
    // priority, so Trainer::extend registers the decorator as it would the actual one.
    std::string default_name() const override { return actual_->name(); }
    training::TriggerArg default_trigger() const override { return actual_->default_trigger(); }
    int priority() const override { return actual_->priority(); }
    void initialize(training::Trainer& trainer) override { actual_->initialize(trainer); }
    void finalize() override { actual_->finalize(); }
    void serialize(const serializers::Serializer& serializer) override { actual_->serialize(serializer); }

    const std::shared_ptr<training::extensions::Evaluator>& actual() const { return actual_; }
    const CommunicatorPtr& communicator() const { return comm_; }

private:
    std::shared_ptr<training::extensions::Evaluator> actual_;
    CommunicatorPtr comm_;
};

// chainermn.create_multi_node_evaluator. See MultiNodeEvaluator.
[[nodiscard]] std::shared_ptr<training::extensions::Evaluator> create_multi_node_evaluator(
    std::shared_ptr<training::extensions::Evaluator> actual, CommunicatorPtr comm);

namespace detail {

// Per key: sum of the weighted values and the total weight.
struct WeightedSums {
    std::map<std::string, std::pair<double, double>> sums;
};
// All-reduces `local` over the ranks (keys agreed first, see Note [Exact multi-node
// evaluation]) and returns sum / weight for every key with a positive total weight.
[[nodiscard]] Observation reduce_weighted_means(const WeightedSums& local, Communicator& comm);

}  // namespace detail

}  // namespace rensa::distributed
