// ParameterStatistics: Chainer's keys and default statistics on known parameters.

#include <catch2/catch.hpp>
#include <cmath>

#include "tests/training/extensions/extensions_testing.h"
#include "training/extensions/parameter_statistics.h"

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::extensions;
using rensa::testing::FakeUpdater;
using rensa::testing::make_array;
using rensa::testing::TempDir;
using rensa::testing::ext::ObservationRecorder;
using rensa::testing::ext::tiny_sgd;

namespace {
using Optimizers = std::map<std::string, std::shared_ptr<optimizers::Optimizer>>;

// A Linear(2, 1) with W = [[1, 2]] and b = [0] (a root link: Chainer's name None).
std::shared_ptr<links::Link> known_linear() { return tiny_sgd()->target_ptr(); }
}  // namespace

TEST_CASE("ParameterStatistics: computes the default statistics of Chainer", "[training][extensions]") {
    ParameterStatistics stats{known_linear()};
    const std::map<std::string, double> s = stats.compute_statistics();
    CHECK(s.at("None/W/data/mean") == 1.5);
    CHECK(s.at("None/W/data/std") == 0.5);
    CHECK(s.at("None/W/data/min") == 1.0);
    CHECK(s.at("None/W/data/max") == 2.0);
    CHECK(s.at("None/W/data/zeros") == 0.0);
    CHECK(s.at("None/b/data/zeros") == 1.0);
    // numpy.percentile([1, 2], (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)): 1 + q / 100.
    const double qs[] = {0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87};
    for (int i = 0; i < 7; ++i) {
        CHECK(s.at("None/W/data/percentile/" + std::to_string(i)) == Approx(1.0 + qs[i] / 100.0).epsilon(1e-12));
    }
    CHECK(s.count("None/W/grad/mean") == 0);  // no grad yet: skipped
    CHECK(s.size() == 2 * 12);                // W and b data: 5 statistics + 7 percentiles each
}

TEST_CASE("ParameterStatistics: names keys by prefix link and parameter path", "[training][extensions]") {
    auto model = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(3, 2));
    ParameterStatistics whole{model, {.report_grads = false}};
    CHECK(whole.compute_statistics().count("None/predictor/W/data/mean") == 1);
    ParameterStatistics child{model->predictor, {.prefix = "stats"}};
    model->predictor->param("W").zerograd();
    const auto s = child.compute_statistics();
    CHECK(s.count("stats/predictor/W/data/mean") == 1);
    CHECK(s.at("stats/predictor/W/grad/zeros") == 6.0);
    ParameterStatistics both{std::vector<std::shared_ptr<links::Link>>{model->predictor, model},
                             {.statistics = Statistics{}, .report_params = true}};
    CHECK(both.compute_statistics().empty());  // no statistics: nothing
    CHECK_THROWS_AS(ParameterStatistics(std::vector<std::shared_ptr<links::Link>>{}), ValueError);
}

TEST_CASE("ParameterStatistics: takes custom statistics and skips NaN parameters", "[training][extensions]") {
    auto link = known_linear();
    ParameterStatistics stats{link, {.statistics = Statistics{}, .report_grads = false}};
    stats.register_statistics("sum", [](const std::vector<double>& x) {
        double s = 0;
        for (double v : x) s += v;
        return std::vector<double>{s};
    });
    stats.register_statistics("pair", [](const std::vector<double>& x) { return std::vector<double>{x[0], -x[0]}; });
    auto s = stats.compute_statistics();
    CHECK(s.at("None/W/data/sum") == 3.0);
    CHECK(s.at("None/W/data/pair/1") == -1.0);

    link->param("W").array().assign(make_array({NAN, 1.0}, Shape{1, 2}, Dtype::kFloat32));
    ParameterStatistics skipping{link, {.report_grads = false, .skip_nan_params = true}};
    s = skipping.compute_statistics();
    CHECK(std::isnan(s.at("None/W/data/mean")));
    CHECK(std::isnan(s.at("None/W/data/percentile")));  // one NaN, no indices
    CHECK(s.count("None/W/data/percentile/0") == 0);
    CHECK(s.at("None/b/data/mean") == 0.0);
    ParameterStatistics plain{link, {.report_grads = false}};
    s = plain.compute_statistics();
    CHECK(std::isnan(s.at("None/W/data/max")));
    CHECK(std::isnan(s.at("None/W/data/percentile/3")));
}

TEST_CASE("ParameterStatistics: reports the mean over its trigger interval", "[training][extensions]") {
    TempDir dir{"parameter_statistics"};
    auto sgd = tiny_sgd();
    auto link = sgd->target_ptr();
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", sgd}}, 2);
    Trainer trainer{updater, {4, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<ParameterStatistics>(link, ParameterStatisticsOptions{.report_grads = false}));
    // Between the calls W's first element goes 1 -> 3 -> 5 -> 7 (a writer before the statistics).
    trainer.extend(make_extension(
        [link](Trainer& t) {
            const double w0 = 2.0 * static_cast<double>(t.updater().iteration()) - 1.0;
            link->param("W").array().assign(make_array({w0, 2.0}, Shape{1, 2}, Dtype::kFloat32));
        },
        {.name = "set_w", .priority = kPriorityWriter + 1}));
    auto recorder = std::make_shared<ObservationRecorder>();
    trainer.extend(recorder);
    trainer.run();
    CHECK(recorder->seen[1].count("None/W/data/max") == 0);
    // Epoch 1 saw W0 = 1, 3: max 2 and 3, mean 2.5; epoch 2 saw 5, 7.
    CHECK(recorder->seen[2].at("None/W/data/max") == 2.5);
    CHECK(recorder->seen[2].at("None/W/data/mean") == Approx((1.5 + 2.5) / 2));
    CHECK(recorder->seen[4].at("None/W/data/max") == 6.0);
    CHECK(trainer.get_extension("parameter_statistics").priority() == kPriorityWriter);
}
