// Crashes during a snapshot: a target that throws halfway, and a process killed (SIGKILL)
// while it writes snapshots. Either way the previous snapshot stays intact, every file
// under a final snapshot name loads completely, and only "tmp..." files are left over.
// See Note [Snapshot writes].
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <regex>
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

namespace {

constexpr int kArrays = 8;
constexpr int64_t kArraySize = 1 << 15;  // 8 x 128 KiB of float32: a write takes a few milliseconds

// The child: snapshots of a payload whose count is the iteration, every iteration, until killed.
[[noreturn]] void write_snapshots_forever(const std::string& out) {
    int status = 0;
    try {
        auto payload = testing::make_payload(kArrays, kArraySize, 1.f);
        Trainer trainer{std::make_shared<FakeUpdater>(10), {}, out};
        trainer.extend(make_extension([&](Trainer& t) { payload->count = t.updater().iteration(); },
                                      {.name = "count", .trigger = {1, "iteration"}}));
        trainer.extend(snapshot_object(payload, "snap_{.updater.iteration}", {.n_retains = 3, .compression = false}),
                       {.trigger = {1, "iteration"}});
        trainer.run();  // no stop trigger
    } catch (...) {
        status = 3;
    }
    ::_exit(status);
}

// Loads `path` completely and checks it holds the payload of iteration `iteration`.
void check_complete(const fs::path& path, int64_t iteration) {
    INFO(path);
    auto loaded = testing::make_payload(kArrays, kArraySize, 0.f);
    REQUIRE_NOTHROW(serializers::load_npz(path.string(), *loaded));
    CHECK(loaded->count == iteration);
    const auto expected = testing::make_payload(kArrays, kArraySize, 1.f);
    for (int i = 0; i < kArrays; ++i) {
        CHECK(loaded->arrays[static_cast<size_t>(i)].to_vector<float>() ==
              expected->arrays[static_cast<size_t>(i)].to_vector<float>());
    }
}

bool has_snapshot(const fs::path& dir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator{dir, ec}) {
        if (e.path().filename().string().rfind("snap_", 0) == 0) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("snapshot crash in serialize keeps the previous snapshot intact", "[training][snapshot]") {
    TempDir dir{"crash_throw"};
    auto payload = testing::make_payload(4, 1000, 5.f);
    auto trainer = std::make_unique<Trainer>(std::make_shared<FakeUpdater>(10), TriggerArg{5, "iteration"}, dir.str());
    trainer->extend(snapshot_object(payload, "payload.npz"), {.trigger = {1, "iteration"}});
    trainer->extend(snapshot_object(payload, "payload_{.updater.iteration}"), {.trigger = {1, "iteration"}});
    // Iteration 2 makes serialize throw halfway, after two arrays were visited.
    trainer->extend(make_extension([&](Trainer& t) { payload->fail_after = t.updater().iteration() == 2 ? 2 : -1; },
                                   {.name = "arm", .trigger = {1, "iteration"}}));
    // The bytes of the first snapshot, read right after it was written.
    std::string first_bytes;
    trainer->extend(make_extension(
        [&](Trainer& t) {
            if (t.updater().iteration() == 1) first_bytes = testing::read_file(dir.path() / "payload.npz");
        },
        {.name = "read", .trigger = {1, "iteration"}, .priority = -200}));
    CHECK_THROWS_WITH(trainer->run(), Catch::Contains("failing on purpose"));
    // Iteration 1's snapshots are intact; iteration 2 left nothing, not even a temporary file.
    CHECK(dir.names() == std::vector<std::string>{"payload.npz", "payload_1"});
    REQUIRE_FALSE(first_bytes.empty());
    CHECK(testing::read_file(dir.path() / "payload.npz") == first_bytes);
    const auto reference = testing::make_payload(4, 1000, 5.f);
    auto loaded = testing::make_payload(4, 1000, 0.f);
    serializers::load_npz((dir.path() / "payload.npz").string(), *loaded);
    CHECK(loaded->count == 5);
    CHECK(testing::to_doubles(loaded->arrays[3]) == testing::to_doubles(reference->arrays[3]));
}

TEST_CASE("snapshot killed mid-write leaves only complete snapshots and tmp files", "[training][snapshot]") {
    std::mt19937 rng{20261203};
    std::uniform_int_distribution<int> delay_ms{0, 40};
    const std::regex final_name{R"(snap_([0-9]+))"};
    int complete = 0, partial = 0;
    for (int round = 0; round < 8; ++round) {
        INFO("round " << round);
        TempDir dir{"crash_kill_" + std::to_string(round)};
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) write_snapshots_forever(dir.str());
        // Kill it a random short time after its first snapshot landed (at most 10 s of waiting).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
        while (!has_snapshot(dir.path()) && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds{1});
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{delay_ms(rng)});
        ::kill(child, SIGKILL);
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        REQUIRE(WIFSIGNALED(status));  // it was still writing (a clean exit would mean it failed)
        int finals = 0;
        for (const std::string& name : dir.names()) {
            std::smatch m;
            if (std::regex_match(name, m, final_name)) {
                check_complete(dir.path() / name, std::stoll(m[1].str()));
                ++finals;
            } else {
                INFO(name);
                CHECK(name.rfind("tmp", 0) == 0);  // a partial write carries a temporary name
                ++partial;
            }
        }
        CHECK(finals >= 1);
        CHECK(finals <= 4);  // n_retains = 3, plus one written before the cleanup ran
        complete += finals;
    }
    CHECK(complete >= 8);
    // Most rounds kill a write in progress (the child spends nearly all its time writing),
    // so the rounds did test interrupted writes.
    CHECK(partial >= 1);
}
