#pragma once
// chainer.training.extensions.ParameterStatistics: statistics of the parameters (and
// their grads) of some links, averaged over the calls between two firings of its
// trigger and reported as
//   "<prefix>/<link name><param path>/<data|grad>/<statistic>"   e.g. "predictor/l1/W/data/mean"
// with "/<i>" appended for statistics that give several numbers (the percentiles).
//
//   trainer.extend(std::make_shared<extensions::ParameterStatistics>(model));

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "links/link.h"
#include "training/extension.h"
#include "training/summary.h"

namespace rensa::training::extensions {

// A statistic of a parameter's elements (flattened, as float64): one number, or several
// (each reported with its index).
using StatisticFunction = std::function<std::vector<double>(const std::vector<double>& values)>;
using Statistics = std::vector<std::pair<std::string, StatisticFunction>>;

// Chainer's defaults, in its order: mean, std (population), min, max, zeros (the count of
// exact zeros) and percentile (numpy's linear interpolation at 0.13, 2.28, 15.87, 50,
// 84.13, 97.72, 99.87). NaN propagates into each of them.
[[nodiscard]] Statistics default_parameter_statistics();

struct ParameterStatisticsOptions {
    std::optional<Statistics> statistics = std::nullopt;  // nullopt: default_parameter_statistics()
    bool report_params = true;                            // "data" statistics
    bool report_grads = true;                             // "grad" statistics
    std::string prefix = "";                              // non-empty: keys start with "<prefix>/"
    TriggerArg trigger = {1, "epoch"};                    // when the averages are reported
    // true: a parameter (or grad) holding a NaN reports a single NaN per statistic
    // (no indices) instead of computing it.
    bool skip_nan_params = false;
};

class ParameterStatistics : public Extension {
public:
    // One link or several (ValueError when empty or holding null). A link's name is the
    // name its parent gave it, or "None" for a root link, as Chainer's link.name.
    ParameterStatistics(std::shared_ptr<links::Link> link, ParameterStatisticsOptions options = {});
    ParameterStatistics(std::vector<std::shared_ptr<links::Link>> links, ParameterStatisticsOptions options = {});

    // Adds the current statistics to the running means; on the trigger reports the means
    // to the trainer's current observation and starts afresh. Uninitialised parameters and
    // absent grads are skipped (Chainer would fail on them).
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "parameter_statistics"; }
    int priority() const override { return kPriorityWriter; }

    // Adds (or replaces) a statistic (Chainer's register_statistics).
    void register_statistics(const std::string& name, StatisticFunction function);
    // The statistics of the current parameters, one call's worth (what operator() adds).
    [[nodiscard]] std::map<std::string, double> compute_statistics() const;

private:
    void add_param_statistics(const std::string& key_base, const Array& values,
                              std::map<std::string, double>& out) const;

    std::vector<std::shared_ptr<links::Link>> links_;
    Statistics statistics_;
    std::vector<std::string> attrs_;
    std::string prefix_;
    TriggerPtr trigger_;
    bool skip_nan_params_;
    DictSummary summary_;
};

}  // namespace rensa::training::extensions
