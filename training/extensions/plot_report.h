#pragma once
// chainer.training.extensions.PlotReport: collects the means of some observed keys each
// time its trigger fires and draws them, against the epoch or the iteration, as a line
// chart in "<out>/<filename>". Chainer draws a PNG with matplotlib; rensa writes a
// standalone SVG (svg_chart.h), so there is no extra dependency.
//
//   trainer.extend(std::make_shared<extensions::PlotReport>(
//       std::vector<std::string>{"main/loss", "validation/main/loss"}, PlotReportOptions{.x_key = "epoch",
//       .filename = "loss.svg"}));

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "training/extension.h"
#include "training/extensions/svg_chart.h"
#include "training/summary.h"

namespace rensa::training::extensions {

struct PlotReportOptions {
    // "epoch", "iteration" or one of the y keys (Chainer's default: "iteration").
    std::string x_key = "iteration";
    TriggerArg trigger = {1, "epoch"};  // when a point is added and the file rewritten
    // Called with the chart before it is written, and the summary of the last interval
    // (Chainer's postprocess(figure, axes, summary)); it may change anything in the chart.
    std::function<void(SvgChart& chart, const DictSummary& summary)> postprocess = nullptr;
    std::string filename = "plot.svg";
    std::string marker = "x";  // see SvgChart::marker; "" draws no markers
    bool grid = true;
};

class PlotReport : public Extension {
public:
    // ValueError for an empty filename or an unknown marker.
    explicit PlotReport(std::vector<std::string> y_keys, PlotReportOptions options = {});
    explicit PlotReport(std::string y_key, PlotReportOptions options = {});

    // Adds the observed y keys to the summary; when the trigger fires appends (x, mean)
    // for each y key observed in the interval, writes the chart atomically (a temporary
    // file, then a rename) when any key has a point, and starts a new summary. KeyError
    // when x_key is neither "epoch", "iteration" nor observed.
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "PlotReport"; }
    // "_plot_<filename>": the points as Chainer's JSON ({"key": [[x, y], ...]}).
    void serialize(const serializers::Serializer& serializer) override;

    // key -> (x, y) points so far.
    const std::map<std::string, std::vector<std::pair<double, double>>>& data() const { return data_; }
    // The chart of the current data (what operator() writes).
    [[nodiscard]] SvgChart make_chart() const;

private:
    std::vector<std::string> y_keys_;
    PlotReportOptions options_;
    TriggerPtr trigger_;
    DictSummary summary_;
    std::map<std::string, std::vector<std::pair<double, double>>> data_;
};

}  // namespace rensa::training::extensions
