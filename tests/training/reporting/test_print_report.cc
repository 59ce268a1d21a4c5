#include <catch2/catch.hpp>
#include <sstream>

#include "tests/training/training_testing.h"
#include "training/extensions/log_report.h"
#include "training/extensions/print_report.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::FakeUpdater;
using rensa::testing::scalar;
using rensa::testing::TempDir;
using training::Trainer;
using training::extensions::LogEntry;
using training::extensions::LogReport;
using training::extensions::LogReportOptions;
using training::extensions::PrintReport;
using training::extensions::PrintReportOptions;

// Iteration i reports main/loss = i / 2 (exact in binary, so '%g' text is predictable).
FakeUpdater::ReportFn half_loss() {
    return [](int64_t i) { return Observation{{"main/loss", scalar(i / 2.0)}}; };
}

// A LogReport without a file whose entries get a fixed elapsed_time.
std::shared_ptr<LogReport> fixed_time_log() {
    return std::make_shared<LogReport>(LogReportOptions{
        .postprocess = [](LogEntry& entry) { entry["elapsed_time"] = 12345678.5; },
        .filename = std::nullopt,
    });
}

}  // namespace

TEST_CASE("PrintReport: exact text of a small log with a missing value and a wide column", "[training][reporting]") {
    TempDir dir{"print_exact"};
    Trainer trainer{std::make_shared<FakeUpdater>(2, half_loss()), {2, "epoch"}, dir.str()};
    trainer.extend(fixed_time_log());
    std::ostringstream out;
    trainer.extend(std::make_shared<PrintReport>(
        std::vector<std::string>{"epoch", "iteration", "main/loss", "validation/main/loss", "elapsed_time"},
        PrintReportOptions{.out = &out, .is_terminal = false}));
    trainer.run();
    const std::string expected =
        "epoch       iteration   main/loss   validation/main/loss  elapsed_time\n"
        "1           2           0.75                              1.23457e+07   \n"
        "2           4           1.75                              1.23457e+07   \n";
    CHECK(out.str() == expected);
}

TEST_CASE("PrintReport: on a terminal each row starts with the erase code", "[training][reporting]") {
    TempDir dir{"print_tty"};
    Trainer trainer{std::make_shared<FakeUpdater>(2, half_loss()), {1, "epoch"}, dir.str()};
    trainer.extend(fixed_time_log());
    std::ostringstream out;
    trainer.extend(std::make_shared<PrintReport>(std::vector<std::string>{"epoch", "main/loss"},
                                                 PrintReportOptions{.out = &out, .is_terminal = true}));
    trainer.run();
    CHECK(out.str() ==
          "epoch       main/loss \n"
          "\033[J1           0.75        \n");
}

TEST_CASE("PrintReport: its own LogReport and inferred entries", "[training][reporting]") {
    TempDir dir{"print_own"};
    Trainer trainer{std::make_shared<FakeUpdater>(2, half_loss()), {1, "epoch"}, dir.str()};
    std::ostringstream out;
    auto print_report = std::make_shared<PrintReport>(std::vector<std::string>{},
                                                      PrintReportOptions{.log_report = fixed_time_log(), .out = &out});
    CHECK(print_report->default_name() == "PrintReport");
    trainer.extend(print_report);  // no LogReport registered: it uses its own
    trainer.run();
    CHECK(print_report->entries() == std::vector<std::string>{"epoch", "iteration", "main/loss", "elapsed_time"});
    CHECK(out.str() ==
          "epoch       iteration   main/loss   elapsed_time\n"
          "1           2           0.75        1.23457e+07   \n");
    CHECK(out.str().find('\033') == std::string::npos);  // a string stream is no terminal
}

TEST_CASE("PrintReport: a LogReport name that is not registered is a KeyError", "[training][reporting]") {
    TempDir dir{"print_missing"};
    Trainer trainer{std::make_shared<FakeUpdater>(2, half_loss()), {1, "epoch"}, dir.str()};
    std::ostringstream out;
    trainer.extend(std::make_shared<PrintReport>(std::vector<std::string>{"epoch"},
                                                 PrintReportOptions{.log_report = std::string{"nope"}, .out = &out}));
    CHECK_THROWS_AS(trainer.run(), KeyError);
    CHECK_THROWS_AS(PrintReport({"epoch"}, {.out = nullptr}), ValueError);
}
