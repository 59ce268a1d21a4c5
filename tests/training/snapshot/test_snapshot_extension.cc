// The snapshot extensions inside a Trainer: defaults, triggers, n_retains, condition,
// autoload, snapshot_object and snapshot_on_error.
#include <catch2/catch.hpp>

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

namespace {

struct Run {
    std::shared_ptr<FakeUpdater> updater = std::make_shared<FakeUpdater>(4);
    std::unique_ptr<Trainer> trainer;
    Run(int64_t stop, const TempDir& dir)
        : trainer{std::make_unique<Trainer>(updater, TriggerArg{stop, "iteration"}, dir.str())} {}
};

}  // namespace

TEST_CASE("snapshot extension defaults follow chainer", "[training][snapshot]") {
    const auto ext = snapshot();
    CHECK(ext->default_name() == "_Snapshot");
    CHECK(ext->priority() == -100);
    const auto length = ext->default_trigger().get()->get_training_length();
    REQUIRE(length.has_value());
    CHECK(*length == std::pair<int64_t, std::string>{1, "epoch"});
    CHECK(ext->options().filename == "snapshot_iter_{.updater.iteration}");
    CHECK(ext->options().n_retains == -1);
    CHECK_FALSE(ext->options().autoload);
    TempDir dir{"defaults"};
    Run run{8, dir};
    run.trainer->extend(ext);
    run.trainer->run();
    // Once per epoch (4 iterations), named by iteration.
    CHECK(dir.names() == std::vector<std::string>{"snapshot_iter_4", "snapshot_iter_8"});
}

TEST_CASE("snapshot extension retains the newest n and loads into a trainer", "[training][snapshot]") {
    TempDir dir{"retain"};
    {
        Run run{10, dir};
        run.trainer->extend(snapshot({.n_retains = 2}), {.trigger = {3, "iteration"}});
        run.trainer->run();
    }
    CHECK(dir.names() == std::vector<std::string>{"snapshot_iter_6", "snapshot_iter_9"});
    Run fresh{10, dir};
    fresh.trainer->extend(snapshot({.n_retains = 2}), {.trigger = {3, "iteration"}});
    serializers::load_npz((dir.path() / "snapshot_iter_9").string(), *fresh.trainer);
    CHECK(fresh.updater->iteration() == 9);
}

TEST_CASE("snapshot extension condition skips snapshots", "[training][snapshot]") {
    TempDir dir{"condition"};
    int calls = 0;
    Run run{6, dir};
    run.trainer->extend(snapshot({.filename = "s_{.updater.iteration}_{.updater.epoch}",
                                  .condition = [&calls] { return ++calls % 2 == 0; }}),
                        {.trigger = {1, "iteration"}});
    run.trainer->run();
    CHECK(calls == 6);
    CHECK(dir.names() == std::vector<std::string>{"s_2_0", "s_4_1", "s_6_1"});
}

TEST_CASE("snapshot extension autoload resumes from the newest snapshot", "[training][snapshot]") {
    TempDir dir{"autoload"};
    const auto options = SnapshotOptions{.autoload = true};
    {
        Run first{2, dir};  // nothing to load: starts at 0
        first.trainer->extend(snapshot(options), {.trigger = {2, "iteration"}});
        first.trainer->run();
        CHECK(first.updater->iteration() == 2);
    }
    {
        Run second{6, dir};
        second.trainer->extend(snapshot(options), {.trigger = {2, "iteration"}});
        second.trainer->run();  // loads snapshot_iter_2, then runs 4 updates
        CHECK(second.updater->iteration() == 6);
    }
    CHECK(dir.names() == std::vector<std::string>{"snapshot_iter_2", "snapshot_iter_4", "snapshot_iter_6"});
    Run third{6, dir};
    third.trainer->extend(snapshot(options), {.trigger = {2, "iteration"}});
    third.trainer->run();  // already at the stop trigger after loading snapshot_iter_6
    CHECK(third.updater->iteration() == 6);
}

TEST_CASE("snapshot_object saves and autoloads its target", "[training][snapshot]") {
    TempDir dir{"object"};
    auto payload = testing::make_payload(2, 5, 3.f);
    {
        Run run{8, dir};
        run.trainer->extend(snapshot_object(payload, "payload_{.updater.epoch}.npz"));
        run.trainer->extend(make_extension([&](Trainer& t) { payload->count = t.updater().iteration(); },
                                           {.name = "count", .trigger = {1, "iteration"}}));
        run.trainer->run();
    }
    CHECK(dir.names() == std::vector<std::string>{"payload_1.npz", "payload_2.npz"});
    auto loaded = testing::make_payload(2, 5, 0.f);
    serializers::load_npz((dir.path() / "payload_1.npz").string(), *loaded);
    CHECK(loaded->count == 4);
    CHECK(testing::to_doubles(loaded->arrays[1]) == testing::to_doubles(payload->arrays[1]));
    // autoload: the newest file goes into the target during initialize().
    auto restored = testing::make_payload(2, 5, 0.f);
    Run again{1, dir};
    auto ext = snapshot_object(restored, "payload_{.updater.epoch}.npz", {.autoload = true});
    ext->initialize(*again.trainer);
    CHECK(restored->count == 8);
    CHECK(testing::to_doubles(restored->arrays[0]) == testing::to_doubles(payload->arrays[0]));
}

TEST_CASE("snapshot extension snapshot_on_error saves the failing state", "[training][snapshot]") {
    for (const bool on_error : {false, true}) {
        TempDir dir{"on_error"};
        Run run{10, dir};
        run.trainer->extend(snapshot({.snapshot_on_error = on_error}), {.trigger = {100, "iteration"}});
        run.trainer->extend(make_extension(
            [](Trainer& t) {
                if (t.updater().iteration() == 3) RENSA_THROW(ValueError, "stop here");
            },
            {.name = "fail", .trigger = {1, "iteration"}}));
        CHECK_THROWS_AS(run.trainer->run(), ValueError);
        CHECK(dir.names() == (on_error ? std::vector<std::string>{"snapshot_iter_3"} : std::vector<std::string>{}));
    }
}

TEST_CASE("snapshot extension filename_fn names the files", "[training][snapshot]") {
    TempDir dir{"filename_fn"};
    Run run{4, dir};
    run.trainer->extend(
        snapshot({.filename_fn = [](const Trainer& t) { return "custom_" + std::to_string(t.updater().iteration()); },
                  .n_retains = 1}),
        {.trigger = {2, "iteration"}});
    run.trainer->run();
    CHECK(dir.names() == std::vector<std::string>{"custom_2", "custom_4"});  // n_retains needs a template
}
