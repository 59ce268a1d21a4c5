#include "distributed/multi_node_early_stopping_trigger.h"

#include <iostream>
#include <limits>

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::distributed {

namespace {

training::TriggerPtr trigger_or(const training::TriggerArg& arg, int64_t period, const std::string& unit) {
    return arg.empty() ? training::TriggerArg{period, unit}.get() : arg.get();
}

bool is_number(Dtype dtype) { return is_float(dtype) || is_integral(dtype) || dtype == Dtype::kBool; }

}  // namespace

MultiNodeEarlyStoppingTrigger::MultiNodeEarlyStoppingTrigger(CommunicatorPtr comm,
                                                             training::triggers::EarlyStoppingOptions options)
    : comm_{std::move(comm)},
      monitor_{std::move(options.monitor)},
      patience_{options.patience},
      verbose_{options.verbose},
      max_trigger_{trigger_or(options.max_trigger, 100, "epoch")},
      interval_trigger_{trigger_or(options.check_trigger, 1, "epoch")} {
    RENSA_CHECK(comm_ != nullptr, ValueError, "MultiNodeEarlyStoppingTrigger: the communicator is null");
    RENSA_CHECK(options.mode == "auto" || options.mode == "min" || options.mode == "max", ValueError,
                "MultiNodeEarlyStoppingTrigger: mode must be 'auto', 'min' or 'max', got '", options.mode, "'");
    RENSA_CHECK(patience_ >= 0, ValueError, "MultiNodeEarlyStoppingTrigger: patience must be >= 0, got ", patience_);
    greater_ = options.mode == "max" || (options.mode == "auto" && monitor_.find("accuracy") != std::string::npos);
    best_ = greater_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
}

bool MultiNodeEarlyStoppingTrigger::operator()(training::Trainer& trainer) {
    const auto it = trainer.observation.find(monitor_);
    // As DictSummary: numeric 0-d values only.
    if (it != trainer.observation.end() && it->second.defined() && it->second.ndim() == 0 &&
        is_number(it->second.dtype())) {
        sum_ += it->second.item<double>();
        ++n_;
    }
    if ((*max_trigger_)(trainer)) return true;
    if (!(*interval_trigger_)(trainer)) return false;

    const std::vector<double> total =
        comm_
            ->allreduce(
                Array::from_vector(std::vector<double>{sum_, static_cast<double>(n_)}, Shape{2}, Device::native()),
                ReduceOp::kSum)
            .to_vector<double>();
    sum_ = 0.0;
    n_ = 0;
    if (total[1] <= 0) return false;  // no rank observed the monitor (Chainer warns)
    const double mean = total[0] / total[1];
    if (improved(mean)) {
        best_ = mean;
        count_ = 0;
    } else {
        ++count_;
    }
    if (count_ < patience_) return false;
    if (verbose_ && comm_->rank() == 0) {
        std::cout << "Epoch " << trainer.updater().epoch() << ": early stopping" << std::endl;
    }
    return true;
}

std::optional<std::pair<int64_t, std::string>> MultiNodeEarlyStoppingTrigger::get_training_length() const {
    return max_trigger_->get_training_length();
}

void MultiNodeEarlyStoppingTrigger::serialize(const serializers::Serializer& serializer) {
    max_trigger_->serialize(serializer["max_trigger"]);
    interval_trigger_->serialize(serializer["interval_trigger"]);
    serializer("sum", sum_);
    serializer("n", n_);
    serializer("best", best_);
    serializer("count", count_);
}

std::shared_ptr<MultiNodeEarlyStoppingTrigger> create_multi_node_early_stopping_trigger(
    CommunicatorPtr comm, training::triggers::EarlyStoppingOptions options) {
    return std::make_shared<MultiNodeEarlyStoppingTrigger>(std::move(comm), std::move(options));
}

}  // namespace rensa::distributed
