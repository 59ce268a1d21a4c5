#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/sgd.h"
#include "tests/testing/testing.h"
#include "tests/training/training_testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/fail_on_non_number.h"
#include "training/extensions/log_report.h"
#include "training/extensions/print_report.h"
#include "training/extensions/progress_bar.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using rensa::testing::TempDir;

// Two separable classes: x[0] + x[1] > 0 is class 1.
DatasetPtr separable(int64_t n, int64_t offset) {
    std::vector<double> xs, ts;
    for (int64_t i = 0; i < n; ++i) {
        const double a = static_cast<double>((i + offset) % 7) - 3.0,
                     b = static_cast<double>((i * 3 + offset) % 5) - 2.0;
        xs.push_back(a);
        xs.push_back(b);
        ts.push_back(a + b > 0 ? 1 : 0);
    }
    return std::make_shared<datasets::TupleDataset>(std::vector<Array>{
        rensa::testing::make_array(xs, Shape{n, 2}, Dtype::kFloat32),
        rensa::testing::make_array(ts, Shape{n}, Dtype::kInt32),
    });
}

}  // namespace

TEST_CASE("reporting: a small classifier trains with Evaluator LogReport PrintReport ProgressBar FailOnNonNumber",
          "[training][reporting]") {
    TempDir dir{"trainer_all"};
    auto model = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(2, 2));
    auto optimizer = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.1});
    optimizer->setup(model);
    auto train_iter = std::make_shared<iterators::SerialIterator>(separable(40, 0), 8,
                                                                  iterators::SerialIteratorOptions{.shuffle = false});
    auto test_iter = std::make_shared<iterators::SerialIterator>(
        separable(15, 3), 4, iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});
    auto updater = std::make_shared<updaters::StandardUpdater>(train_iter, optimizer);
    Trainer trainer{updater, {4, "epoch"}, dir.str()};

    std::ostringstream printed, progress;
    trainer.extend(std::make_shared<extensions::Evaluator>(test_iter, model));
    auto log_report = std::make_shared<extensions::LogReport>();
    trainer.extend(log_report);
    trainer.extend(std::make_shared<extensions::PrintReport>(
        std::vector<std::string>{"epoch", "main/loss", "validation/main/loss", "validation/main/accuracy"},
        extensions::PrintReportOptions{.out = &printed}));
    trainer.extend(std::make_shared<extensions::ProgressBar>(
        extensions::ProgressBarOptions{.update_interval = 5, .out = &progress}));
    trainer.extend(std::make_shared<extensions::FailOnNonNumber>());
    trainer.run();

    const auto& log = log_report->log();
    REQUIRE(log.size() == 4);
    for (const auto& entry : log) {
        for (const char* key : {"main/loss", "main/accuracy", "validation/main/loss", "validation/main/accuracy",
                                "epoch", "iteration", "elapsed_time"}) {
            CHECK(entry.count(key) == 1);
        }
    }
    CHECK(log[3].at("iteration") == 20);
    CHECK(log[3].at("validation/main/loss") < log[0].at("validation/main/loss"));
    CHECK(log[3].at("main/loss") < log[0].at("main/loss"));

    const auto json = nlohmann::json::parse(std::ifstream{dir.path() / "log"});
    REQUIRE(json.size() == 4);
    CHECK(json[2]["validation/main/accuracy"].get<double>() == log[2].at("validation/main/accuracy"));

    std::istringstream lines{printed.str()};
    std::string line;
    std::vector<std::string> rows;
    while (std::getline(lines, line)) rows.push_back(line);
    REQUIRE(rows.size() == 5);
    CHECK(rows[0] == "epoch       main/loss   validation/main/loss  validation/main/accuracy");
    CHECK(rows[4].rfind("4           ", 0) == 0);
    CHECK(progress.str().find("        20 iter, 4 epoch / 4 epochs\n") != std::string::npos);
}
