#pragma once
// chainermn.extensions.MultiNodeEarlyStoppingTrigger: Chainer's EarlyStoppingTrigger whose
// monitored value, at each check, is the mean over every rank's values since the last check
// (all-reduced sum and count), so every rank sees the same value and stops at the same
// iteration. ChainerMN averages the per-rank means; weighing by count gives the same value
// when ranks report equally often and the exact mean otherwise.
//
// The check and max triggers must fire at the same iteration on every rank (iteration units,
// or epoch units with equal-length shards or JoinIterator: see Note [Epoch ends over shards]
// in distributed/scatter_dataset.h): a check is a collective.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "distributed/communicator.h"
#include "training/trigger.h"
#include "training/triggers/early_stopping_trigger.h"

namespace rensa::distributed {

class MultiNodeEarlyStoppingTrigger final : public training::Trigger {
public:
    // The options of the single-process trigger (check_trigger, monitor, patience, mode,
    // verbose, max_trigger). ValueError as EarlyStoppingTrigger, or for a null comm.
    MultiNodeEarlyStoppingTrigger(CommunicatorPtr comm, training::triggers::EarlyStoppingOptions options = {});

    // True when max_trigger fires, or at a check where the global mean did not improve for
    // the patience-th time in a row. Every check all-reduces, even on a rank that did not
    // observe the monitor; a check where no rank did is skipped on every rank.
    bool operator()(training::Trainer& trainer) override;
    std::optional<std::pair<int64_t, std::string>> get_training_length() const override;
    // "max_trigger/...", "interval_trigger/...", "sum", "n", "best", "count".
    void serialize(const serializers::Serializer& serializer) override;

    double best() const { return best_; }
    int64_t count() const { return count_; }

private:
    bool improved(double value) const { return greater_ ? value > best_ : value < best_; }

    CommunicatorPtr comm_;
    std::string monitor_;
    int64_t patience_;
    bool verbose_;
    bool greater_;
    training::TriggerPtr max_trigger_;
    training::TriggerPtr interval_trigger_;
    double sum_ = 0.0;  // local values since the last check
    int64_t n_ = 0;
    double best_;
    int64_t count_ = 0;
};

// chainermn.extensions.create_multi_node_early_stopping_trigger (a stop trigger for Trainer).
[[nodiscard]] std::shared_ptr<MultiNodeEarlyStoppingTrigger> create_multi_node_early_stopping_trigger(
    CommunicatorPtr comm, training::triggers::EarlyStoppingOptions options = {});

}  // namespace rensa::distributed
