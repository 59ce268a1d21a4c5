// PlotReport and the SVG chart: the points collected, a well-formed standalone SVG written
// atomically, and the points kept through a snapshot.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "serializers/npz.h"
#include "tests/training/extensions/extensions_testing.h"
#include "training/extensions/plot_report.h"
#include "training/extensions/svg_chart.h"

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::extensions;
using rensa::testing::FakeUpdater;
using rensa::testing::read_file;
using rensa::testing::scalar;
using rensa::testing::TempDir;
using rensa::testing::ext::tiny_sgd;

namespace {

using Optimizers = std::map<std::string, std::shared_ptr<optimizers::Optimizer>>;

size_t count_of(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// Python's XML parser accepts the file and its root is <svg>.
bool parses_as_svg(const std::string& path) {
    const std::string command = std::string{RENSA_TEST_PYTHON3} +
                                " -c \"import sys, xml.etree.ElementTree as E; "
                                "sys.exit(0 if E.parse(sys.argv[1]).getroot().tag.endswith('svg') else 3)\" '" +
                                path + "'";
    return std::system(command.c_str()) == 0;
}

std::vector<std::string> files_in(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
}

// Iteration i reports loss 1 / i, and accuracy i / 10 except NaN at iteration 3.
Observation loss_and_accuracy(int64_t i) {
    const double acc = i == 3 ? NAN : static_cast<double>(i) / 10.0;
    return {{"main/loss", scalar(1.0 / static_cast<double>(i))}, {"main/accuracy", scalar(acc)}};
}

}  // namespace

TEST_CASE("PlotReport: collects the interval means against x_key", "[training][extensions]") {
    TempDir dir{"plot_points"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 2, loss_and_accuracy);
    Trainer trainer{updater, {6, "iteration"}, dir.str()};
    auto plot = std::make_shared<PlotReport>(std::vector<std::string>{"main/loss", "main/accuracy", "absent"},
                                             PlotReportOptions{.x_key = "epoch"});
    trainer.extend(plot);
    trainer.run();
    const auto& loss = plot->data().at("main/loss");
    REQUIRE(loss.size() == 3);
    CHECK(loss[0] == std::pair{1.0, (1.0 + 0.5) / 2});
    CHECK(loss[2].first == 3.0);
    CHECK(loss[2].second == Approx((1.0 / 5 + 1.0 / 6) / 2));
    const auto& accuracy = plot->data().at("main/accuracy");
    REQUIRE(accuracy.size() == 3);
    CHECK(std::isnan(accuracy[1].second));  // the NaN of iteration 3 spoils epoch 2's mean
    CHECK(plot->data().at("absent").empty());
    CHECK(files_in(dir.str()) == std::vector<std::string>{"plot.svg"});  // no temporary file is left
}

TEST_CASE("PlotReport: the call before training is a point of its own at epoch 0", "[training][extensions]") {
    TempDir dir{"plot_before_training"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 2, loss_and_accuracy);
    Trainer trainer{updater, {4, "iteration"}, dir.str()};
    // A writer (like Evaluator) that reports "val" = 9 before training and 1 at each epoch end.
    auto validation = training::make_extension(
        [](Trainer& t) {
            report({{"val", scalar(t.updater().iteration() == 0 ? 9.0 : 1.0)}});
        },
        {.name = "val", .trigger = {1, "epoch"}, .priority = 300});
    auto plot =
        std::make_shared<PlotReport>(std::vector<std::string>{"val", "main/loss"}, PlotReportOptions{.x_key = "epoch"});
    trainer.extend(validation, {.call_before_training = true});
    trainer.extend(plot, {.call_before_training = true});
    trainer.run();
    const auto& val = plot->data().at("val");
    REQUIRE(val.size() == 3);
    CHECK(val[0] == std::pair{0.0, 9.0});
    CHECK(val[1] == std::pair{1.0, 1.0});  // not the mean of 9 and 1
    CHECK(val[2] == std::pair{2.0, 1.0});
    const auto& loss = plot->data().at("main/loss");
    REQUIRE(loss.size() == 2);  // nothing trained at epoch 0
    CHECK(loss[0] == std::pair{1.0, (1.0 + 0.5) / 2});
}

TEST_CASE("PlotReport: writes a well-formed SVG line chart", "[training][extensions]") {
    TempDir dir{"plot_svg"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 2, loss_and_accuracy);
    Trainer trainer{updater, {8, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<PlotReport>(std::vector<std::string>{"main/loss", "main/accuracy"},
                                                PlotReportOptions{.filename = "loss.svg", .marker = "o"}));
    trainer.run();
    const std::string svg = read_file(dir.file("loss.svg"));
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(count_of(svg, "<polyline") == 2);  // one per key
    CHECK(svg.find(">main/loss</text>") != std::string::npos);
    CHECK(svg.find(">main/accuracy</text>") != std::string::npos);
    CHECK(svg.find(">iteration</text>") != std::string::npos);  // Chainer's default x_key
    CHECK(svg.find("#1f77b4") != std::string::npos);
    CHECK(svg.find("#ff7f0e") != std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
    CHECK(parses_as_svg(dir.file("loss.svg")));
}

TEST_CASE("PlotReport: writes nothing until a key has a point", "[training][extensions]") {
    TempDir dir{"plot_empty"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 2);
    Trainer trainer{updater, {4, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<PlotReport>("main/loss"));
    trainer.run();
    CHECK_FALSE(std::filesystem::exists(dir.file("plot.svg")));
}

TEST_CASE("PlotReport: fails cleanly when the file cannot be replaced", "[training][extensions]") {
    TempDir dir{"plot_blocked"};
    std::filesystem::create_directories(dir.file("plot.svg/inside"));  // a folder where the file goes
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 1, loss_and_accuracy);
    Trainer trainer{updater, {2, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<PlotReport>("main/loss"));
    CHECK_THROWS_AS(trainer.run(), IOError);
    CHECK(files_in(dir.str()) == std::vector<std::string>{"plot.svg"});  // the temporary file was removed
    CHECK(std::filesystem::is_directory(dir.file("plot.svg/inside")));
}

TEST_CASE("PlotReport: checks its x_key and marker", "[training][extensions]") {
    CHECK_THROWS_AS(PlotReport("a", {.marker = "*?"}), ValueError);
    CHECK_THROWS_AS(PlotReport("a", {.filename = ""}), ValueError);
    TempDir dir{"plot_x_key"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 1, loss_and_accuracy);
    Trainer trainer{updater, {1, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<PlotReport>("main/loss", PlotReportOptions{.x_key = "elapsed"}));
    CHECK_THROWS_AS(trainer.run(), KeyError);
}

TEST_CASE("PlotReport: keeps its points through a snapshot", "[training][extensions]") {
    TempDir dir{"plot_resume"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 2, loss_and_accuracy);
    Trainer trainer{updater, {4, "iteration"}, dir.str()};
    auto plot = std::make_shared<PlotReport>(std::vector<std::string>{"main/loss", "main/accuracy"},
                                             PlotReportOptions{.x_key = "epoch"});
    trainer.extend(plot);
    trainer.run();
    serializers::save_npz(dir.file("snapshot.npz"), *plot);

    PlotReport loaded{std::vector<std::string>{"main/loss", "main/accuracy"}, {.x_key = "epoch"}};
    serializers::load_npz(dir.file("snapshot.npz"), loaded);
    CHECK(loaded.data().at("main/loss") == plot->data().at("main/loss"));
    REQUIRE(loaded.data().at("main/accuracy").size() == 2);
    CHECK(std::isnan(loaded.data().at("main/accuracy")[1].second));  // NaN goes through JSON as null
    // The key is "_plot_<filename>", so another file name does not find it.
    PlotReport other{"main/loss", {.filename = "other.svg"}};
    CHECK_THROWS_AS(serializers::load_npz(dir.file("snapshot.npz"), other), KeyError);
    CHECK(other.data().at("main/loss").empty());
}

TEST_CASE("svg_chart: skips non-finite points and has round ticks", "[training][extensions]") {
    SvgChart chart{.series = {{"a<b", {{0, 1}, {1, NAN}, {2, INFINITY}, {3, 2}}}, {"empty", {{0, NAN}}}},
                   .xlabel = "epoch",
                   .marker = "x"};
    const std::string svg = render_svg(chart);
    CHECK(count_of(svg, "<polyline") == 2);
    CHECK(svg.find(">a&lt;b</text>") != std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
    const auto check_ticks = [](const std::vector<double>& got, const std::vector<double>& expected) {
        REQUIRE(got.size() == expected.size());
        for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).margin(1e-12));
    };
    check_ticks(nice_ticks(0.0, 1.0, 6), {0.0, 0.2, 0.4, 0.6, 0.8, 1.0});
    check_ticks(nice_ticks(-0.15, 3.15, 8), {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0});
    check_ticks(nice_ticks(1e-4, 9e-4, 5), {2e-4, 4e-4, 6e-4, 8e-4});
    CHECK_THROWS_AS(render_svg(SvgChart{.series = {}, .marker = "?"}), ValueError);
}
