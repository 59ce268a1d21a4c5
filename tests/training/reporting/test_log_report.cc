#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "serializers/npz.h"
#include "tests/training/training_testing.h"
#include "training/extensions/log_report.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::FakeUpdater;
using rensa::testing::read_file;
using rensa::testing::scalar;
using rensa::testing::TempDir;
using training::Trainer;
using training::extensions::LogEntry;
using training::extensions::LogReport;
using training::extensions::LogReportOptions;
namespace fs = std::filesystem;

std::set<std::string> files_in(const fs::path& folder) {
    std::set<std::string> names;
    for (const auto& item : fs::directory_iterator(folder)) names.insert(item.path().filename().string());
    return names;
}

// Iteration i reports main/loss = i and main/accuracy = i / 10.
FakeUpdater::ReportFn loss_and_accuracy() {
    return [](int64_t i) {
        return Observation{{"main/loss", scalar(static_cast<double>(i))}, {"main/accuracy", scalar(i / 10.0)}};
    };
}

}  // namespace

TEST_CASE("LogReport: one entry per epoch with the means written as JSON like Chainer", "[training][reporting]") {
    TempDir dir{"log_epoch"};
    auto updater = std::make_shared<FakeUpdater>(4, loss_and_accuracy());
    Trainer trainer{updater, {2, "epoch"}, dir.str()};
    auto log_report = std::make_shared<LogReport>();
    trainer.extend(log_report);
    trainer.run();

    const auto& log = log_report->log();
    REQUIRE(log.size() == 2);
    CHECK(log[0].at("main/loss") == Approx(2.5));  // mean of 1..4
    CHECK(log[0].at("main/accuracy") == Approx(0.25));
    CHECK(log[0].at("epoch") == 1);
    CHECK(log[0].at("iteration") == 4);
    CHECK(log[1].at("main/loss") == Approx(6.5));  // the summary restarts after each entry
    CHECK(log[1].at("epoch") == 2);
    CHECK(log[1].at("iteration") == 8);
    CHECK(log[1].at("elapsed_time") >= log[0].at("elapsed_time"));
    CHECK(log[0].at("elapsed_time") >= 0.0);

    CHECK(files_in(dir.path()) == std::set<std::string>{"log"});  // no temporary file left
    const std::string text = read_file(dir.path() / "log");
    CHECK(text.rfind("[\n    {\n        \"elapsed_time\": ", 0) == 0);  // json.dump(indent=4)
    const auto json = nlohmann::json::parse(text);
    REQUIRE(json.is_array());
    REQUIRE(json.size() == 2);
    std::set<std::string> keys;
    for (const auto& [key, value] : json[1].items()) keys.insert(key);
    CHECK(keys == std::set<std::string>{"elapsed_time", "epoch", "iteration", "main/accuracy", "main/loss"});
    CHECK(json[1]["epoch"].is_number_integer());
    CHECK(json[1]["iteration"].get<int64_t>() == 8);
    CHECK(json[1]["main/loss"].is_number_float());
    CHECK(json[1]["main/loss"].get<double>() == log[1].at("main/loss"));
    CHECK(json[0]["main/accuracy"].get<double>() == log[0].at("main/accuracy"));
}

TEST_CASE("LogReport: keys and an iteration trigger and postprocess and a filename template", "[training][reporting]") {
    TempDir dir{"log_keys"};
    auto updater = std::make_shared<FakeUpdater>(100, loss_and_accuracy());
    Trainer trainer{updater, {6, "iteration"}, dir.str()};
    auto log_report = std::make_shared<LogReport>(LogReportOptions{
        .keys = std::vector<std::string>{"main/loss", "absent"},
        .trigger = {3, "iteration"},
        .postprocess = [](LogEntry& entry) { entry["twice"] = 2 * entry.at("main/loss"); },
        .filename = "log_{iteration}.json",
    });
    trainer.extend(log_report);
    trainer.run();

    const auto& log = log_report->log();
    REQUIRE(log.size() == 2);
    CHECK(log[0].count("main/accuracy") == 0);  // not among the keys
    CHECK(log[0].count("absent") == 0);         // never reported
    CHECK(log[0].at("main/loss") == Approx(2.0));
    CHECK(log[0].at("twice") == Approx(4.0));
    CHECK(log[0].at("epoch") == 0);
    CHECK(log[1].at("main/loss") == Approx(5.0));
    CHECK(log[1].at("iteration") == 6);
    CHECK(files_in(dir.path()) == std::set<std::string>{"log_3.json", "log_6.json"});
    CHECK(nlohmann::json::parse(read_file(dir.path() / "log_3.json")).size() == 1);
    const auto last = nlohmann::json::parse(read_file(dir.path() / "log_6.json"));
    REQUIRE(last.size() == 2);
    CHECK(last[1]["twice"].get<double>() == Approx(10.0));
}

TEST_CASE("LogReport: no filename writes no file and the defaults follow Chainer", "[training][reporting]") {
    TempDir dir{"log_nofile"};
    auto updater = std::make_shared<FakeUpdater>(2, loss_and_accuracy());
    Trainer trainer{updater, {2, "epoch"}, dir.str()};
    auto log_report = std::make_shared<LogReport>(LogReportOptions{.filename = std::nullopt});
    CHECK(log_report->default_name() == "LogReport");
    CHECK(log_report->priority() == training::kPriorityReader);
    trainer.extend(log_report);
    trainer.run();
    CHECK(log_report->log().size() == 2);
    CHECK(files_in(dir.path()).empty());
}

TEST_CASE("LogReport: a filename field the entry lacks is a KeyError", "[training][reporting]") {
    TempDir dir{"log_badname"};
    auto updater = std::make_shared<FakeUpdater>(2, loss_and_accuracy());
    Trainer trainer{updater, {1, "epoch"}, dir.str()};
    trainer.extend(std::make_shared<LogReport>(LogReportOptions{.filename = "log_{nope}"}));
    CHECK_THROWS_AS(trainer.run(), KeyError);
}

TEST_CASE("LogReport: the atomic write replaces the file and cleans up when it fails", "[training][reporting]") {
    using training::extensions::detail::write_file_atomically;
    TempDir dir{"log_atomic"};
    const fs::path path = dir.path() / "log";
    write_file_atomically(path.string(), "first");
    write_file_atomically(path.string(), "second, longer");
    CHECK(read_file(path) == "second, longer");
    const auto permissions = fs::status(path).permissions();
    CHECK((permissions & fs::perms::others_read) != fs::perms::none);
    CHECK(files_in(dir.path()) == std::set<std::string>{"log"});

    // A folder in the way of the rename: IOError, the temporary file is gone.
    fs::create_directories(dir.path() / "blocked" / "child");
    CHECK_THROWS_AS(write_file_atomically((dir.path() / "blocked").string(), "x"), IOError);
    CHECK(files_in(dir.path()) == std::set<std::string>{"blocked", "log"});
    CHECK_THROWS_AS(write_file_atomically((dir.path() / "missing" / "log").string(), "x"), IOError);
}

TEST_CASE("LogReport: log_to_json and log_from_json round trip with NaN as null", "[training][reporting]") {
    using namespace training::extensions::detail;
    const std::vector<LogEntry> log{{{"epoch", 1}, {"iteration", 10}, {"main/loss", 0.1}},
                                    {{"epoch", 2}, {"main/loss", std::nan("")}, {"x", 1e-30}}};
    const std::string text = log_to_json(log, -1);
    CHECK(text ==
          "[{\"epoch\":1,\"iteration\":10,\"main/loss\":0.1},"
          "{\"epoch\":2,\"main/loss\":null,\"x\":1e-30}]");
    const auto back = log_from_json(text, "test");
    REQUIRE(back.size() == 2);
    CHECK(back[0] == log[0]);
    CHECK(std::isnan(back[1].at("main/loss")));
    CHECK(back[1].at("x") == 1e-30);
    CHECK_THROWS_AS(log_from_json("{\"a\": 1}", "test"), ValueError);
    CHECK_THROWS_AS(log_from_json("[{\"a\": \"text\"}]", "test"), ValueError);
    CHECK_THROWS_AS(log_from_json("[{", "test"), ValueError);
}

TEST_CASE("LogReport: the call before training logs the untrained model as its own entry", "[training][reporting]") {
    TempDir dir{"log_before_training"};
    auto updater = std::make_shared<FakeUpdater>(4, loss_and_accuracy());
    Trainer trainer{updater, {1, "epoch"}, dir.str()};
    auto log_report = std::make_shared<LogReport>();
    // A writer (like Evaluator) that reports "val" = 9 before training and at each epoch end.
    auto validation = training::make_extension(
        [](Trainer&) {
            report({{"val", scalar(9.0)}});
        },
        {.name = "val", .trigger = {1, "epoch"}, .priority = 300});
    trainer.extend(validation, {.call_before_training = true});
    trainer.extend(log_report, {.call_before_training = true});
    trainer.run();

    const auto& log = log_report->log();
    REQUIRE(log.size() == 2);
    CHECK(log[0].at("iteration") == 0);
    CHECK(log[0].at("epoch") == 0);
    CHECK(log[0].at("val") == 9.0);
    CHECK(log[0].count("main/loss") == 0);
    CHECK(log[1].at("iteration") == 4);
    CHECK(log[1].at("main/loss") == Approx(2.5));  // not merged with the entry before training
    CHECK(log[1].at("val") == 9.0);
}
