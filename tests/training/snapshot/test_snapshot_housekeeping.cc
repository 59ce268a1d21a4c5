// Housekeeping of snapshots (issue 20, item 8): the next snapshot removes the temporary
// files an interrupted write of the same writer left (See Note [Snapshot writes]), and
// autoload takes the newest snapshot by the iteration in its name, falling back to the
// newest one that loads and saying which it skipped and why (See Note [Autoload order]).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "serializers/npz.h"
#include "tests/testing/testing.h"
#include "tests/training/snapshot/snapshot_testing.h"
#include "training/extensions/snapshot.h"
#include "training/trainer.h"

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::extensions;
using rensa::testing::FakeUpdater;
using rensa::testing::TempDir;
namespace fs = std::filesystem;
namespace sd = rensa::training::extensions::detail;

namespace {

// Captures std::cerr for its lifetime.
class CerrCapture {
public:
    CerrCapture() : old_{std::cerr.rdbuf(text_.rdbuf())} {}
    ~CerrCapture() { std::cerr.rdbuf(old_); }
    CerrCapture(const CerrCapture&) = delete;
    CerrCapture& operator=(const CerrCapture&) = delete;
    std::string str() const { return text_.str(); }

private:
    std::ostringstream text_;
    std::streambuf* old_;
};

// Writes snap_<i> for each i, a payload whose count is i, with mtimes in the given order
// (the first written is the oldest).
void write_payload_snapshots(const fs::path& dir, const std::vector<int64_t>& iterations) {
    int age = static_cast<int>(iterations.size());
    for (const int64_t i : iterations) {
        auto payload = testing::make_payload(2, 8, static_cast<float>(i));
        sd::write_snapshot([&](const serializers::Serializer& s) { payload->serialize(s); }, dir,
                           "snap_" + std::to_string(i), false);
        fs::last_write_time(dir / ("snap_" + std::to_string(i)),
                            fs::file_time_type::clock::now() - std::chrono::seconds{10 * age--});
    }
}

// The count a snapshot_object autoload restores from `dir` (-1: none loaded).
int64_t autoload_count(const TempDir& dir, std::shared_ptr<Snapshot>* ext_out = nullptr) {
    auto restored = testing::make_payload(2, 8, 0.f);
    restored->count = -1;
    Trainer trainer{std::make_shared<FakeUpdater>(4), {}, dir.str()};
    const auto ext = snapshot_object(restored, "snap_{.updater.iteration}", {.autoload = true});
    ext->initialize(trainer);
    if (ext_out) *ext_out = ext;
    return restored->count;
}

void touch(const fs::path& path) { std::ofstream{path} << "x"; }

// The child: snapshots every iteration until killed (as in test_snapshot_crash.cc).
[[noreturn]] void write_snapshots_forever(const std::string& out) {
    int status = 0;
    try {
        auto payload = testing::make_payload(8, 1 << 15, 1.f);
        Trainer trainer{std::make_shared<FakeUpdater>(10), {}, out};
        trainer.extend(snapshot_object(payload, "snap_{.updater.iteration}", {.compression = false}),
                       {.trigger = {1, "iteration"}});
        trainer.run();
    } catch (...) {
        status = 3;
    }
    ::_exit(status);
}

std::vector<std::string> tmp_names(const TempDir& dir) {
    std::vector<std::string> out;
    for (const std::string& name : dir.names()) {
        if (name.rfind("tmp", 0) == 0) out.push_back(name);
    }
    return out;
}

}  // namespace

TEST_CASE("snapshot removes the temporaries an interrupted write of the same writer left", "[training][snapshot]") {
    TempDir dir{"stale_tmp"};
    // What a write killed at each step leaves (mkstemp, save_npz's and libzip's temporaries).
    for (const char* name : {"tmpsnap_3Ab12Zq", "tmpsnap_3Ab12Zq.tmp-x9Y8w7", "tmpsnap_3Ab12Zq.tmp-x9Y8w7.Qr5T6u",
                             "tmpsnap_12000zzzzzz"}) {
        touch(dir.path() / name);
    }
    // Not this writer's: another template, a name that is no temporary, a folder, user files.
    for (const char* name : {"tmpother_3Ab12Zq", "tmpsnap_3", "tmpsnap_3Ab12Zq.bak", "snap_notes", "tmp_keep"}) {
        touch(dir.path() / name);
    }
    fs::create_directory(dir.path() / "tmpsnap_4Ab12Zq");
    auto payload = testing::make_payload(2, 8, 1.f);
    Trainer trainer{std::make_shared<FakeUpdater>(4), {}, dir.str()};
    auto ext = snapshot_object(payload, "snap_{.updater.iteration}");
    (*ext)(trainer);
    CHECK(dir.names() == std::vector<std::string>{"snap_0", "snap_notes", "tmp_keep", "tmpother_3Ab12Zq", "tmpsnap_3",
                                                  "tmpsnap_3Ab12Zq.bak", "tmpsnap_4Ab12Zq"});
    // With filename_fn, the leftovers of that very name.
    touch(dir.path() / "tmpfixed.npzQ1w2E3");
    touch(dir.path() / "tmpsnap_5Ab12Zq");
    auto fixed = snapshot_object(payload, "unused", {.filename_fn = [](const Trainer&) { return "fixed.npz"; }});
    (*fixed)(trainer);
    CHECK(fs::exists(dir.path() / "fixed.npz"));
    CHECK_FALSE(fs::exists(dir.path() / "tmpfixed.npzQ1w2E3"));
    CHECK(fs::exists(dir.path() / "tmpsnap_5Ab12Zq"));  // another writer's
}

TEST_CASE("snapshot after a killed writer leaves no temporary behind", "[training][snapshot]") {
    // Kill a writer until a kill leaves temporaries (most do), then take one snapshot.
    TempDir dir{"killed_tmp"};
    std::vector<std::string> left;
    for (int round = 0; round < 20 && left.empty(); ++round) {
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) write_snapshots_forever(dir.str());
        std::this_thread::sleep_for(std::chrono::milliseconds{30 + 7 * round});
        ::kill(child, SIGKILL);
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        left = tmp_names(dir);
    }
    INFO("left by the killed writer: " << Catch::Detail::stringify(left));
    REQUIRE_FALSE(left.empty());
    // Each is one of the three temporaries of Note [Snapshot writes].
    const std::regex temporary{R"(tmpsnap_[0-9]+[A-Za-z0-9]{6}(\.tmp-[A-Za-z0-9]{6})?(\.[A-Za-z0-9]{6})?)"};
    for (const std::string& name : left) CHECK(std::regex_match(name, temporary));
    auto payload = testing::make_payload(8, 1 << 15, 1.f);
    Trainer trainer{std::make_shared<FakeUpdater>(10), {}, dir.str()};
    (*snapshot_object(payload, "snap_{.updater.iteration}"))(trainer);
    CHECK(tmp_names(dir).empty());
}

TEST_CASE("snapshot autoload takes the highest iteration, not the newest mtime", "[training][snapshot]") {
    TempDir dir{"autoload_order"};
    write_payload_snapshots(dir.path(), {10, 30, 20});  // snap_20 is the newest file
    CHECK(autoload_count(dir) == 30);
    CHECK(sd::find_snapshot_files("snap_{.updater.iteration}", dir.path()) ==
          std::vector<fs::path>{dir.path() / "snap_10", dir.path() / "snap_20", dir.path() / "snap_30"});
}

TEST_CASE("snapshot autoload falls back to the newest snapshot that loads", "[training][snapshot]") {
    TempDir dir{"autoload_fallback"};
    write_payload_snapshots(dir.path(), {10, 20, 30});
    const fs::path newest = dir.path() / "snap_30";
    fs::resize_file(newest, fs::file_size(newest) / 2);  // a truncated file
    {
        CerrCapture cerr;
        std::shared_ptr<Snapshot> ext;
        CHECK(autoload_count(dir, &ext) == 20);
        CHECK(ext->loaded() == dir.path() / "snap_20");
        INFO(cerr.str());
        CHECK_THAT(cerr.str(), Catch::Contains("skipped '" + newest.string() + "'") && Catch::Contains("zip") &&
                                   Catch::Contains("snap_20"));
    }
    // A snapshot of something else (a key missing) is skipped too; the reason names the key.
    auto other = testing::make_payload(1, 8, 5.f);
    sd::write_snapshot([&](const serializers::Serializer& s) { s("x", other->count); }, dir.path(), "snap_40", false);
    {
        CerrCapture cerr;
        CHECK(autoload_count(dir) == 20);
        CHECK_THAT(cerr.str(), Catch::Contains("snap_40") && Catch::Contains("a0") && Catch::Contains("snap_30"));
    }
    // None loads: an IOError naming every file and why.
    fs::resize_file(dir.path() / "snap_10", 10);
    fs::resize_file(dir.path() / "snap_20", 10);
    CHECK_THROWS_AS(autoload_count(dir), IOError);
    CHECK_THROWS_WITH(autoload_count(dir), Catch::Contains("none of the 4 snapshots") && Catch::Contains("snap_10") &&
                                               Catch::Contains("snap_20") && Catch::Contains("snap_30") &&
                                               Catch::Contains("snap_40"));
}

TEST_CASE("snapshot autoload fallback resumes a trainer", "[training][snapshot]") {
    TempDir dir{"autoload_trainer"};
    int64_t first_iteration = -1;  // the first iteration a run sees
    const auto watch = [&first_iteration](Trainer& trainer) {
        trainer.extend(make_extension(
            [&first_iteration](Trainer& t) {
                if (first_iteration < 0) first_iteration = t.updater().iteration();
            },
            {.name = "first", .trigger = {1, "iteration"}}));
    };
    {
        Trainer first{std::make_shared<FakeUpdater>(4), {6, "iteration"}, dir.str()};
        first.extend(snapshot(), {.trigger = {2, "iteration"}});
        watch(first);
        first.run();
    }
    fs::resize_file(dir.path() / "snapshot_iter_6", 100);
    CerrCapture cerr;
    auto updater = std::make_shared<FakeUpdater>(4);
    Trainer second{updater, {8, "iteration"}, dir.str()};
    second.extend(snapshot({.autoload = true}), {.trigger = {2, "iteration"}});
    first_iteration = -1;
    watch(second);
    second.run();  // resumes at 4 from snapshot_iter_4, runs to 8
    CHECK(first_iteration == 5);
    CHECK(updater->iteration() == 8);
    CHECK_THAT(cerr.str(), Catch::Contains("snapshot_iter_6") && Catch::Contains("snapshot_iter_4"));
}
