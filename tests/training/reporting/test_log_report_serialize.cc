#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "serializers/npz.h"
#include "tests/training/training_testing.h"
#include "training/extensions/log_report.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::FakeUpdater;
using rensa::testing::scalar;
using rensa::testing::TempDir;
using training::Trainer;
using training::extensions::LogEntry;
using training::extensions::LogReport;
namespace fs = std::filesystem;

FakeUpdater::ReportFn loss() {
    return [](int64_t i) { return Observation{{"main/loss", scalar(static_cast<double>(i))}}; };
}

// The log of a LogReport over iterations (start, stop] with 4 iterations per epoch.
std::vector<LogEntry> run_log(LogReport& log_report, int64_t start, int64_t stop, const fs::path& out) {
    auto updater = std::make_shared<FakeUpdater>(4, loss());
    updater->set_iteration(start);
    Trainer trainer{updater, {stop, "iteration"}, out.string()};
    trainer.extend(std::shared_ptr<LogReport>(&log_report, [](LogReport*) {}));
    trainer.run();
    return log_report.log();
}

// The first of RENSA_TEST_PYTHON3, /usr/bin/python3 and python3 that imports numpy ("" if none).
std::string numpy_python() {
    for (const std::string& candidate :
         {std::string{RENSA_TEST_PYTHON3}, std::string{"/usr/bin/python3"}, std::string{"python3"}}) {
        const std::string probe = "\"" + candidate + "\" -c \"import numpy\" > /dev/null 2>&1";
        if (std::system(probe.c_str()) == 0) return candidate;
    }
    return "";
}

// Writes only "_log" (a forged or foreign file).
struct ForgedLog {
    std::string text;
    void serialize(const serializers::Serializer& serializer) { serializer("_log", text); }
};

}  // namespace

TEST_CASE("LogReport: serialize round trip restores the log and the trigger and the pending summary",
          "[training][reporting]") {
    TempDir dir{"log_serialize"};
    const std::string snapshot = (dir.path() / "log_report.npz").string();
    LogReport reference;
    const std::vector<LogEntry> uninterrupted = run_log(reference, 0, 8, dir.path() / "a");
    REQUIRE(uninterrupted.size() == 2);

    LogReport first;
    REQUIRE(run_log(first, 0, 6, dir.path() / "b").size() == 1);  // iterations 5 and 6 pending
    serializers::save_npz(snapshot, first);

    LogReport resumed;
    serializers::load_npz(snapshot, resumed);
    REQUIRE(resumed.log().size() == 1);
    CHECK(resumed.log()[0] == first.log()[0]);  // exact: the JSON keeps every digit
    const auto log = run_log(resumed, 6, 8, dir.path() / "c");
    REQUIRE(log.size() == 2);  // the epoch trigger did not fire early at iteration 7
    CHECK(log[1].at("main/loss") == uninterrupted[1].at("main/loss"));  // 6.5 = mean of 5..8
    CHECK(log[1].at("iteration") == 8);
    CHECK(log[1].at("epoch") == 2);

    // The file holds json.dumps(log) as numpy holds a str, what Chainer's LogReport reads.
    const std::string python = numpy_python();
    if (python.empty()) {
        WARN("no python3 with numpy: the numpy side of the check is skipped");
        return;
    }
    const std::string check = "\"" + python +
                              "\" -c \"import json, sys, numpy; d = numpy.load(sys.argv[1]); "
                              "log = json.loads(str(d['_log'])); "
                              "sys.exit(0 if len(log) == 1 and log[0]['iteration'] == 4 else 1)\" " +
                              snapshot;
    CHECK(std::system(check.c_str()) == 0);
}

TEST_CASE("LogReport: loading a malformed log throws ValueError and changes nothing", "[training][reporting]") {
    TempDir dir{"log_badload"};
    LogReport log_report;
    REQUIRE(run_log(log_report, 0, 4, dir.path() / "out").size() == 1);
    const std::vector<LogEntry> before = log_report.log();
    for (const char* text : {"[{\"a\": \"text\"}]", "{}", "[1, 2]", "not json"}) {
        const std::string path = (dir.path() / "forged.npz").string();
        ForgedLog forged{text};
        serializers::save_npz(path, forged);
        CHECK_THROWS_AS(serializers::load_npz(path, log_report, {.strict = false}), ValueError);
        CHECK(log_report.log() == before);
    }
}
