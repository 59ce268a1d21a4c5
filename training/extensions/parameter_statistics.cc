#include "training/extensions/parameter_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/array.h"
#include "core/error.h"
#include "core/reporter.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool has_nan(const std::vector<double>& x) {
    return std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); });
}

double mean_of(const std::vector<double>& x) {
    return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double std_of(const std::vector<double>& x) {
    const double mean = mean_of(x);
    double sum = 0.0;
    for (const double v : x) sum += (v - mean) * (v - mean);
    return std::sqrt(sum / static_cast<double>(x.size()));
}

// numpy.percentile with its default linear interpolation; NaN when any element is NaN.
std::vector<double> percentiles_of(std::vector<double> x, const std::vector<double>& qs) {
    if (x.empty() || has_nan(x)) return std::vector<double>(qs.size(), kNaN);
    std::sort(x.begin(), x.end());
    std::vector<double> result;
    for (const double q : qs) {
        const double pos = q / 100.0 * static_cast<double>(x.size() - 1);
        const auto lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, x.size() - 1);
        const double frac = pos - static_cast<double>(lo);
        result.push_back(x[lo] + frac * (x[hi] - x[lo]));
    }
    return result;
}

// Report through the current reporter (the trainer's observation during the loop).
void report_to(Trainer& trainer, const Observation& values) {
    if (Reporter* reporter = get_current_reporter(); reporter != nullptr && reporter->observation() != nullptr) {
        reporter->report(values);
        return;
    }
    for (const auto& [key, value] : values) trainer.observation[key] = value;
}

}  // namespace

Statistics default_parameter_statistics() {
    // min/max/mean/std of an empty array fail in numpy; here they give NaN.
    auto guarded = [](double (*fn)(const std::vector<double>&)) {
        return [fn](const std::vector<double>& x) { return std::vector<double>{x.empty() ? kNaN : fn(x)}; };
    };
    auto min_of = [](const std::vector<double>& x) {
        return has_nan(x) ? kNaN : *std::min_element(x.begin(), x.end());
    };
    auto max_of = [](const std::vector<double>& x) {
        return has_nan(x) ? kNaN : *std::max_element(x.begin(), x.end());
    };
    return {
        {"mean", guarded(mean_of)},
        {"std", guarded(std_of)},
        {"min", guarded(+min_of)},
        {"max", guarded(+max_of)},
        {"zeros",
         [](const std::vector<double>& x) {
             return std::vector<double>{static_cast<double>(std::count(x.begin(), x.end(), 0.0))};
         }},
        {"percentile",
         [](const std::vector<double>& x) {
             return percentiles_of(x, {0.13, 2.28, 15.87, 50.0, 84.13, 97.72, 99.87});
         }},
    };
}

ParameterStatistics::ParameterStatistics(std::shared_ptr<links::Link> link, ParameterStatisticsOptions options)
    : ParameterStatistics(std::vector<std::shared_ptr<links::Link>>{std::move(link)}, std::move(options)) {}

ParameterStatistics::ParameterStatistics(std::vector<std::shared_ptr<links::Link>> links,
                                         ParameterStatisticsOptions options)
    : links_{std::move(links)},
      statistics_{options.statistics ? std::move(*options.statistics) : default_parameter_statistics()},
      prefix_{std::move(options.prefix)},
      trigger_{options.trigger.empty() ? TriggerArg{1, "epoch"}.get() : options.trigger.get()},
      skip_nan_params_{options.skip_nan_params} {
    RENSA_CHECK(!links_.empty(), ValueError, "ParameterStatistics: no links given");
    for (size_t i = 0; i < links_.size(); ++i) {
        RENSA_CHECK(links_[i] != nullptr, ValueError, "ParameterStatistics: link ", i, " is null");
    }
    if (options.report_params) attrs_.emplace_back("data");
    if (options.report_grads) attrs_.emplace_back("grad");
}

void ParameterStatistics::register_statistics(const std::string& name, StatisticFunction function) {
    RENSA_CHECK(function != nullptr, ValueError, "ParameterStatistics.register_statistics: '", name,
                "' has an empty function");
    for (auto& [existing, fn] : statistics_) {
        if (existing == name) {
            fn = std::move(function);
            return;
        }
    }
    statistics_.emplace_back(name, std::move(function));
}

void ParameterStatistics::add_param_statistics(const std::string& key_base, const Array& values,
                                               std::map<std::string, double>& out) const {
    const std::vector<double> x = values.to_vector<double>();
    const bool skip = skip_nan_params_ && has_nan(x);
    for (const auto& [function_name, function] : statistics_) {
        const std::string key = key_base + function_name;
        if (skip) {
            out[key] = kNaN;
            continue;
        }
        const std::vector<double> result = function(x);
        if (result.size() == 1) {
            out[key] = result[0];
        } else {
            for (size_t i = 0; i < result.size(); ++i) out[key + "/" + std::to_string(i)] = result[i];
        }
    }
}

std::map<std::string, double> ParameterStatistics::compute_statistics() const {
    std::map<std::string, double> out;
    const std::string prefix = prefix_.empty() ? "" : prefix_ + "/";
    for (const auto& link : links_) {
        const std::string link_name = link->name().empty() ? "None" : link->name();
        for (const auto& [param_name, param] : link->namedparams()) {
            if (!param.is_initialized()) continue;
            for (const std::string& attr : attrs_) {
                const Array values = attr == "data" ? param.array() : param.grad();
                if (!values.defined()) continue;  // no grad yet
                add_param_statistics(prefix + link_name + param_name + "/" + attr + "/", values, out);
            }
        }
    }
    return out;
}

void ParameterStatistics::operator()(Trainer& trainer) {
    summary_.add(compute_statistics());
    if (!(*trigger_)(trainer)) return;
    Observation report;
    for (const auto& [key, mean] : summary_.compute_mean()) {
        report[key] = Array::from_vector<double>({mean}, Shape{}, Device::native());
    }
    report_to(trainer, report);
    summary_ = DictSummary{};
}

}  // namespace rensa::training::extensions
