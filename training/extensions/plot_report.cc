#include "training/extensions/plot_report.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "training/detail/names.h"
#include "training/extensions/log_report.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

using Points = std::map<std::string, std::vector<std::pair<double, double>>>;

// Chainer's json.dumps of {key: [(x, y), ...]}: epoch and iteration x's are integers.
std::string points_to_json(const Points& data, bool integer_x) {
    nlohmann::json json = nlohmann::json::object();
    for (const auto& [key, points] : data) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& [x, y] : points) {
            nlohmann::json xj =
                integer_x && std::isfinite(x) ? nlohmann::json(static_cast<int64_t>(x)) : nlohmann::json(x);
            list.push_back(nlohmann::json::array({std::move(xj), y}));  // NaN is written as null
        }
        json[key] = std::move(list);
    }
    return json.dump();
}

double number_or_nan(const nlohmann::json& v, const std::string& what) {
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    RENSA_CHECK(v.is_number(), ValueError, what, ": expected a number, got ", v.dump());
    return v.get<double>();
}

Points points_from_json(const std::string& text, const std::string& what) {
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        RENSA_THROW(ValueError, what, ": not valid JSON (", e.what(), ")");
    }
    RENSA_CHECK(json.is_object(), ValueError, what, ": expected a JSON object of point lists");
    Points data;
    for (const auto& [key, list] : json.items()) {
        RENSA_CHECK(list.is_array(), ValueError, what, ": '", key, "' is not a list of points");
        auto& points = data[key];
        for (const auto& p : list) {
            RENSA_CHECK(p.is_array() && p.size() == 2, ValueError, what, ": a point of '", key,
                        "' is not an [x, y] pair: ", p.dump());
            points.emplace_back(number_or_nan(p[0], what), number_or_nan(p[1], what));
        }
    }
    return data;
}

}  // namespace

PlotReport::PlotReport(std::vector<std::string> y_keys, PlotReportOptions options)
    : y_keys_{std::move(y_keys)},
      options_{std::move(options)},
      trigger_{options_.trigger.empty() ? TriggerArg{1, "epoch"}.get() : options_.trigger.get()} {
    RENSA_CHECK(!options_.filename.empty(), ValueError, "PlotReport: the filename is empty");
    RENSA_CHECK(is_svg_marker(options_.marker), ValueError, "PlotReport: unknown marker '", options_.marker,
                "' (use one of \"\", x, +, o, ., s, ^)");
    for (const std::string& key : y_keys_) data_[key];
}

PlotReport::PlotReport(std::string y_key, PlotReportOptions options)
    : PlotReport(std::vector<std::string>{std::move(y_key)}, std::move(options)) {}

SvgChart PlotReport::make_chart() const {
    SvgChart chart{.series = {}, .xlabel = options_.x_key, .grid = options_.grid, .marker = options_.marker};
    for (const std::string& key : y_keys_) {
        const auto it = data_.find(key);
        if (it == data_.end() || it->second.empty()) continue;  // as Chainer: keys without points are not drawn
        chart.series.push_back({key, it->second});
    }
    return chart;
}

void PlotReport::operator()(Trainer& trainer) {
    Observation observed;
    for (const std::string& key : y_keys_) {
        if (const auto it = trainer.observation.find(key); it != trainer.observation.end()) observed[key] = it->second;
    }
    summary_.add(observed);
    // As LogReport and Chainer: a call before training (call_before_training) is a point of its
    // own at iteration 0, not folded into the first trigger's mean.
    if (!trainer.is_before_training() && !(*trigger_)(trainer)) return;

    std::map<std::string, double> stats = summary_.compute_mean();
    stats["epoch"] = static_cast<double>(trainer.updater().epoch());
    stats["iteration"] = static_cast<double>(trainer.updater().iteration());
    const auto x = stats.find(options_.x_key);
    RENSA_CHECK(x != stats.end(), KeyError, "PlotReport: x_key '", options_.x_key, "' was not observed (have ",
                training::detail::quoted_names(stats), ")");
    for (const std::string& key : y_keys_) {
        if (const auto y = stats.find(key); y != stats.end()) data_[key].emplace_back(x->second, y->second);
    }

    SvgChart chart = make_chart();
    if (!chart.series.empty()) {
        if (options_.postprocess) options_.postprocess(chart, summary_);
        std::error_code ignored;  // a folder that cannot be made fails in the write, with an IOError
        std::filesystem::create_directories(trainer.out(), ignored);
        detail::write_file_atomically((std::filesystem::path(trainer.out()) / options_.filename).string(),
                                      render_svg(chart), "PlotReport");
    }
    summary_ = DictSummary{};
}

void PlotReport::serialize(const serializers::Serializer& serializer) {
    const std::string key = "_plot_" + options_.filename;
    const bool integer_x = options_.x_key == "epoch" || options_.x_key == "iteration";
    if (!serializer.is_loading()) {
        std::string json = points_to_json(data_, integer_x);
        serializer(key, json);
        return;
    }
    const std::optional<std::string> text = serializer.read_string(key);
    if (!text) return;
    Points loaded = points_from_json(*text, "PlotReport: " + serializer.key(key));
    for (const std::string& y_key : y_keys_) loaded[y_key];  // keys the file lacks start empty
    serializer.backend().defer([this, loaded = std::move(loaded)]() mutable { data_ = std::move(loaded); });
}

}  // namespace rensa::training::extensions
