#include "training/summary.h"

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "core/error.h"

namespace rensa::training {

namespace {

bool is_number(Dtype dtype) { return is_float(dtype) || is_integral(dtype) || dtype == Dtype::kBool; }

}  // namespace

void Summary::add(double value, double weight) {
    x_ += weight * value;
    x2_ += weight * value * value;
    n_ += static_cast<int64_t>(weight);
}

void Summary::add(const Array& value, double weight) {
    RENSA_CHECK(value.defined() && value.size() > 0, ValueError,
                "Summary.add: the value is an empty or undefined array");
    RENSA_CHECK(is_number(value.dtype()), DtypeError, "Summary.add: cannot summarize an array of dtype ",
                value.dtype());
    const std::vector<double> xs = value.to_vector<double>();
    add(std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size()), weight);
}

double Summary::compute_mean() const {
    RENSA_CHECK(n_ != 0, ValueError, "Summary.compute_mean: nothing was added");
    return x_ / static_cast<double>(n_);
}

std::pair<double, double> Summary::make_statistics() const {
    const double mean = compute_mean();
    // Rounding can make the variance slightly negative for constant values.
    const double var = std::max(0.0, x2_ / static_cast<double>(n_) - mean * mean);
    return {mean, std::sqrt(var)};
}

void Summary::serialize(const serializers::Serializer& serializer) {
    serializer("_x", x_);
    serializer("_x2", x2_);
    serializer("_n", n_);
}

void DictSummary::add(const Observation& observation) {
    for (const auto& [key, value] : observation) {
        // Chainer summarizes scalars only (0-d arrays); other reports are skipped.
        if (!value.defined() || value.ndim() != 0 || !is_number(value.dtype())) continue;
        summaries_[key].add(value.item<double>());
    }
}

void DictSummary::add(const std::map<std::string, double>& values) {
    for (const auto& [key, value] : values) summaries_[key].add(value);
}

std::map<std::string, double> DictSummary::compute_mean() const {
    std::map<std::string, double> means;
    for (const auto& [key, summary] : summaries_) means[key] = summary.compute_mean();
    return means;
}

std::map<std::string, double> DictSummary::make_statistics() const {
    std::map<std::string, double> stats;
    for (const auto& [key, summary] : summaries_) {
        const auto [mean, std] = summary.make_statistics();
        stats[key] = mean;
        stats[key + ".std"] = std;
    }
    return stats;
}

void DictSummary::serialize(const serializers::Serializer& serializer) {
    if (!serializer.is_loading()) {
        std::vector<std::string> names;
        for (const auto& entry : summaries_) names.push_back(entry.first);
        std::string text = nlohmann::json(names).dump();
        serializer("_names", text);
        for (size_t i = 0; i < names.size(); ++i)
            summaries_[names[i]].serialize(serializer["_summaries"][std::to_string(i)]);
        return;
    }
    const std::optional<std::string> text = serializer.read_string("_names");
    if (!text) return;  // absent and allowed: Chainer keeps the statistics
    nlohmann::json parsed = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    RENSA_CHECK(parsed.is_array(), ValueError, "DictSummary.serialize: '", serializer.key("_names"),
                "' is not a JSON list of names: ", *text);
    // The summaries load into a fresh map (their own deferred assignments fill it), which
    // replaces ours only after the whole walk passed (See Note [All-or-nothing loading]).
    auto loaded = std::make_shared<std::map<std::string, Summary>>();
    for (size_t i = 0; i < parsed.size(); ++i) {
        RENSA_CHECK(parsed[i].is_string(), ValueError, "DictSummary.serialize: '", serializer.key("_names"),
                    "' holds a non-string name at ", i, ": ", *text);
        (*loaded)[parsed[i].get<std::string>()].serialize(serializer["_summaries"][std::to_string(i)]);
    }
    serializer.backend().defer([this, loaded] { summaries_ = std::move(*loaded); });
}

}  // namespace rensa::training
