#include <catch2/catch.hpp>

#include "core/error.h"
#include "serializers/npz.h"
#include "tests/training/trainer/trainer_testing.h"
#include "tests/training/triggers/scripted_updater.h"
#include "training/triggers/triggers.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::triggers;
using rensa::testing::firing_iterations;
using V = std::vector<int64_t>;

}  // namespace

TEST_CASE("IntervalTrigger fires every n iterations", "[training][triggers]") {
    CHECK(firing_iterations({3, "iteration"}, 10, 10, 4) == V{3, 6, 9});
    CHECK(firing_iterations({1, "iteration"}, 4, 10, 4) == V{1, 2, 3, 4});
}

TEST_CASE("IntervalTrigger fires at epoch ends with a batch size that does not divide the data",
          "[training][triggers]") {
    // 10 examples, batch 4: epoch_detail 0.4 0.8 1.2 1.6 2.0 2.4 2.8 3.2 3.6 4.0.
    CHECK(firing_iterations({1, "epoch"}, 10, 10, 4) == V{3, 5, 8, 10});
    CHECK(firing_iterations({2, "epoch"}, 10, 10, 4) == V{5, 10});
    // 7 examples, batch 3: epoch_detail 3/7 6/7 9/7 ... 21/7 at iteration 7.
    CHECK(firing_iterations({1, "epoch"}, 7, 7, 3) == V{3, 5, 7});
}

TEST_CASE("IntervalTrigger validates its arguments and reports its length", "[training][triggers]") {
    CHECK_THROWS_AS(IntervalTrigger(0, "epoch"), ValueError);
    CHECK_THROWS_AS(IntervalTrigger(1, "iterations"), ValueError);
    const IntervalTrigger t{5, "iteration"};
    CHECK(t.get_training_length().value() == std::make_pair(int64_t{5}, std::string{"iteration"}));
    CHECK_FALSE(t.finished());
}

TEST_CASE("IntervalTrigger serialize keeps the previous counters", "[training][triggers]") {
    rensa::testing::TempDir dir{"interval_serialize"};
    auto updater = std::make_shared<rensa::testing::ScriptedUpdater>(4);
    Trainer trainer{updater, {}, dir.str()};
    IntervalTrigger a{1, "epoch"};
    for (int i = 0; i < 3; ++i) {
        updater->update();
        CHECK_FALSE(a(trainer));
    }
    serializers::save_npz(dir.file("t.npz"), a);
    CHECK(rensa::testing::saved_keys(a) == std::set<std::string>{"previous_iteration", "previous_epoch_detail"});
    IntervalTrigger b{1, "epoch"};
    serializers::load_npz(dir.file("t.npz"), b);
    updater->update();  // epoch_detail 0.75 -> 1.0
    CHECK(b(trainer));
}

TEST_CASE("ManualScheduleTrigger fires at the listed iterations and finishes", "[training][triggers]") {
    CHECK(firing_iterations(ManualScheduleTrigger::make({2, 5, 7}, "iteration"), 10, 10, 4) == V{2, 5, 7});
    rensa::testing::TempDir dir{"manual"};
    auto updater = std::make_shared<rensa::testing::ScriptedUpdater>(4);
    Trainer trainer{updater, {}, dir.str()};
    ManualScheduleTrigger t{{1, 3}, "iteration"};
    updater->update();
    CHECK(t(trainer));
    CHECK_FALSE(t.finished());
    updater->update();
    CHECK_FALSE(t(trainer));
    updater->update();
    CHECK(t(trainer));
    CHECK(t.finished());
    CHECK_THROWS_AS(ManualScheduleTrigger({}, "epoch"), ValueError);
    CHECK_THROWS_AS(ManualScheduleTrigger({1}, "epochs"), ValueError);
}

TEST_CASE("ManualScheduleTrigger fires at fractional epoch points", "[training][triggers]") {
    // 10 examples, batch 4: 0.5 is crossed at iteration 2, 1.0 at 3, 2.0 at 5.
    CHECK(firing_iterations(ManualScheduleTrigger::make({0.5, 1.0, 2.0}, "epoch"), 10, 10, 4) == V{2, 3, 5});
}

TEST_CASE("ManualScheduleTrigger serialize round trip keeps finished and counters", "[training][triggers]") {
    rensa::testing::TempDir dir{"manual_serialize"};
    auto updater = std::make_shared<rensa::testing::ScriptedUpdater>(4);
    Trainer trainer{updater, {}, dir.str()};
    ManualScheduleTrigger a{{2}, "iteration"};
    updater->update();
    updater->update();
    CHECK(a(trainer));
    serializers::save_npz(dir.file("m.npz"), a);
    ManualScheduleTrigger b{{2}, "iteration"};
    serializers::load_npz(dir.file("m.npz"), b);
    CHECK(b.finished());
    updater->update();
    CHECK_FALSE(b(trainer));
}

TEST_CASE("An extension whose trigger is finished is not initialized", "[training][triggers]") {
    rensa::testing::TempDir dir{"finished_init"};
    std::vector<std::string> events;
    auto updater = std::make_shared<rensa::testing::ScriptedUpdater>(4);
    Trainer trainer{updater, {3, "iteration"}, dir.str()};
    auto once = OnceTrigger::make();
    auto manual = ManualScheduleTrigger::make({1}, "iteration");
    (*once)(trainer);  // fires once: now finished
    trainer.extend(std::make_shared<rensa::testing::RecordingExtension>("once", &events), {.trigger = once});
    trainer.extend(std::make_shared<rensa::testing::RecordingExtension>("manual", &events), {.trigger = manual});
    trainer.run();
    CHECK(std::count(events.begin(), events.end(), "once:initialize") == 0);
    CHECK(std::count(events.begin(), events.end(), "manual:initialize") == 1);
    CHECK(std::count(events.begin(), events.end(), "manual:call") == 1);
    CHECK(std::count(events.begin(), events.end(), "once:call") == 0);
}
