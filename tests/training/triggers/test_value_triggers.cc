#include <catch2/catch.hpp>
#include <thread>

#include "core/error.h"
#include "serializers/npz.h"
#include "tests/training/trainer/trainer_testing.h"
#include "tests/training/triggers/scripted_updater.h"
#include "training/triggers/triggers.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::triggers;
using rensa::testing::RecordingExtension;
using rensa::testing::ScriptedUpdater;
using rensa::testing::TempDir;
using V = std::vector<int64_t>;

// The iterations at which `trigger` fires while iteration i reports values[i - 1] as `key`.
V fires(TriggerArg trigger, const std::string& key, const std::vector<double>& values, int64_t per_epoch = 2) {
    TempDir dir{"value_fires"};
    auto updater = std::make_shared<ScriptedUpdater>(per_epoch, [values, key](int64_t i) {
        return std::map<std::string, double>{{key, values[i - 1]}};
    });
    Trainer trainer{updater, {static_cast<int64_t>(values.size()), "iteration"}, dir.str()};
    auto rec = std::make_shared<RecordingExtension>("rec");
    trainer.extend(rec, {.trigger = std::move(trigger)});
    trainer.run();
    return rec->calls;
}

}  // namespace

TEST_CASE("MinValueTrigger fires when the mean since the last check is a new minimum", "[training][triggers]") {
    // Checks every 2 iterations: means 4.5, 5.0, 3.5, 3.5, 1.0.
    const std::vector<double> values = {5, 4, 6, 4, 3, 4, 4, 3, 1, 1};
    CHECK(fires(MinValueTrigger::make("loss", {2, "iteration"}), "loss", values) == V{2, 6, 10});
    // The default check is every epoch (2 iterations per epoch here).
    CHECK(fires(MinValueTrigger::make("loss"), "loss", values) == V{2, 6, 10});
}

TEST_CASE("MaxValueTrigger fires when the mean is a new maximum", "[training][triggers]") {
    const std::vector<double> values = {0.1, 0.2, 0.5, 0.4, 0.3, 0.2, 0.9, 0.9};
    CHECK(fires(MaxValueTrigger::make("acc", {2, "iteration"}), "acc", values) == V{2, 4, 8});
    CHECK(fires(MaxValueTrigger::make("acc", {1, "iteration"}), "acc", values) == V{1, 2, 3, 7});
}

TEST_CASE("BestValueTrigger raises KeyError when the key was never reported", "[training][triggers]") {
    CHECK_THROWS_WITH(fires(MinValueTrigger::make("missing", {2, "iteration"}), "loss", {1, 2, 3}),
                      Catch::Contains("key 'missing' not found"));
}

TEST_CASE("BestValueTrigger serialize round trip keeps best value summary and interval", "[training][triggers]") {
    TempDir dir{"best_serialize"};
    auto updater = std::make_shared<ScriptedUpdater>(2, [](int64_t i) {
        return std::map<std::string, double>{{"loss", 10.0 - static_cast<double>(i)}};
    });
    Trainer trainer{updater, {}, dir.str()};
    MinValueTrigger fresh{"loss", {2, "iteration"}};
    CHECK_FALSE(fresh.best_value().has_value());
    serializers::save_npz(dir.file("none.npz"), fresh);
    MinValueTrigger a{"loss", {2, "iteration"}};
    auto step = [&](MinValueTrigger& t) {
        trainer.observation = {};
        const ReporterScope scope{trainer.reporter(), trainer.observation};
        updater->update();
        return t(trainer);
    };
    CHECK_FALSE(step(a));  // 9
    CHECK(step(a));        // mean(9, 8) = 8.5
    CHECK(a.best_value().value() == Approx(8.5));
    CHECK_FALSE(step(a));  // 7 accumulated, not checked
    serializers::save_npz(dir.file("a.npz"), a);
    CHECK(rensa::testing::saved_keys(a).count("best_value") == 1);
    CHECK(rensa::testing::saved_keys(a).count("interval_trigger/previous_iteration") == 1);
    CHECK(rensa::testing::saved_keys(a).count("summary/_names") == 1);

    MinValueTrigger b{"loss", {2, "iteration"}};
    serializers::load_npz(dir.file("a.npz"), b);
    CHECK(b.best_value().value() == Approx(8.5));
    CHECK(step(b));  // mean(7, 6) = 6.5: the 7 came from the loaded summary
    CHECK(b.best_value().value() == Approx(6.5));
    serializers::load_npz(dir.file("none.npz"), b);
    CHECK_FALSE(b.best_value().has_value());
}

TEST_CASE("EarlyStoppingTrigger stops after patience checks without improvement", "[training][triggers]") {
    TempDir dir{"early_stop"};
    const std::vector<double> values = {5, 4, 4.5, 4.6, 3.0, 3.5, 3.6, 3.7, 1.0, 1.0, 1.0};
    auto updater = std::make_shared<ScriptedUpdater>(1, [values](int64_t i) {
        return std::map<std::string, double>{{"main/loss", values[i - 1]}};
    });
    auto trigger = EarlyStoppingTrigger::make({.patience = 3, .max_trigger = {100, "epoch"}});
    Trainer trainer{updater, trigger, dir.str()};
    trainer.run();
    // Best 4 at 2, 3 at 5; 3.5, 3.6, 3.7 are three checks without improvement.
    CHECK(updater->iteration() == 8);
    CHECK(trigger->best() == 3.0);
    CHECK(trigger->count() == 3);
    CHECK(trigger->get_training_length().value() == std::make_pair(int64_t{100}, std::string{"epoch"}));
}

TEST_CASE("EarlyStoppingTrigger stops at max_trigger and maximizes accuracy in auto mode", "[training][triggers]") {
    TempDir dir{"early_stop_max"};
    auto updater = std::make_shared<ScriptedUpdater>(2, [](int64_t i) {
        return std::map<std::string, double>{{"validation/main/accuracy", 0.1 * static_cast<double>(i)}};
    });
    auto trigger = EarlyStoppingTrigger::make({.check_trigger = {1, "iteration"},
                                               .monitor = "validation/main/accuracy",
                                               .patience = 1,
                                               .max_trigger = {3, "epoch"}});
    Trainer trainer{updater, trigger, dir.str()};
    trainer.run();
    CHECK(updater->iteration() == 6);       // accuracy keeps rising: only max_trigger (3 epochs) stops it
    CHECK(trigger->best() == Approx(0.5));  // the check of iteration 6 never ran: max_trigger fired first
    CHECK(trigger->count() == 0);
    CHECK_THROWS_AS(EarlyStoppingTrigger({.mode = "biggest"}), ValueError);
}

TEST_CASE("EarlyStoppingTrigger ignores checks without the monitored key", "[training][triggers]") {
    TempDir dir{"early_stop_missing"};
    auto updater = std::make_shared<ScriptedUpdater>(1, [](int64_t) {
        return std::map<std::string, double>{{"x", 1.0}};
    });
    auto trigger = EarlyStoppingTrigger::make({.patience = 1, .max_trigger = {5, "iteration"}});
    Trainer trainer{updater, trigger, dir.str()};
    trainer.run();
    CHECK(updater->iteration() == 5);
    CHECK(trigger->count() == 0);
}

TEST_CASE("OnceTrigger fires once and again after a resume only with call_on_resume", "[training][triggers]") {
    TempDir dir{"once"};
    CHECK(rensa::testing::firing_iterations(OnceTrigger::make(), 4, 8, 4) == V{1});
    auto updater = std::make_shared<ScriptedUpdater>(2);
    Trainer trainer{updater, {}, dir.str()};
    OnceTrigger a;
    CHECK_FALSE(a.finished());
    CHECK(a(trainer));
    CHECK(a.finished());
    CHECK_FALSE(a(trainer));
    serializers::save_npz(dir.file("once.npz"), a);
    CHECK(rensa::testing::saved_keys(a) == std::set<std::string>{"_flag_first"});

    OnceTrigger plain{false};
    serializers::load_npz(dir.file("once.npz"), plain);
    CHECK(plain.finished());
    CHECK_FALSE(plain(trainer));
    OnceTrigger resumed{true};
    serializers::load_npz(dir.file("once.npz"), resumed);
    CHECK_FALSE(resumed.finished());
    CHECK(resumed(trainer));
    CHECK_FALSE(resumed(trainer));
}

TEST_CASE("TimeTrigger fires at most once per call as elapsed time passes each period", "[training][triggers]") {
    TempDir dir{"time"};
    auto updater = std::make_shared<ScriptedUpdater>(100);
    Trainer trainer{updater, {8, "iteration"}, dir.str()};
    auto rec = std::make_shared<RecordingExtension>("rec");
    auto never = std::make_shared<RecordingExtension>("never");
    trainer.extend(rec, {.trigger = TimeTrigger::make(0.05)});
    trainer.extend(never, {.trigger = TimeTrigger::make(1000.0)});
    trainer.extend(make_extension([](Trainer&) { std::this_thread::sleep_for(std::chrono::milliseconds(30)); },
                                  {.name = "sleep", .priority = kPriorityWriter}));
    trainer.run();
    // 8 iterations of >= 30 ms: at least 0.24 s, so at least 4 periods of 0.05 s passed.
    CHECK(rec->calls.size() >= 4);
    CHECK(rec->calls.size() <= 8);
    CHECK(rec->calls.size() <= static_cast<size_t>(trainer.elapsed_time() / 0.05) + 1);
    CHECK(never->calls.empty());
    CHECK_THROWS_AS(TimeTrigger(0.0), ValueError);
}

TEST_CASE("TimeTrigger serialize keeps next_time", "[training][triggers]") {
    TempDir dir{"time_serialize"};
    TimeTrigger a{2.5};
    serializers::save_npz(dir.file("t.npz"), a);
    CHECK(rensa::testing::saved_keys(a) == std::set<std::string>{"next_time"});
    auto updater = std::make_shared<ScriptedUpdater>(2);
    Trainer trainer{updater, {}, dir.str()};
    TimeTrigger b{1e-9};
    CHECK(b(trainer) == false);  // elapsed_time is 0 before run
    serializers::load_npz(dir.file("t.npz"), b);
    CHECK_FALSE(b(trainer));
}

TEST_CASE("EarlyStoppingTrigger serialize keeps the patience count and best", "[training][triggers]") {
    TempDir dir{"early_stop_serialize"};
    const std::vector<double> values = {5, 4, 4.5, 4.6, 4.7, 4.8};
    auto make_updater = [&values] {
        return std::make_shared<ScriptedUpdater>(1, [values](int64_t i) {
            return std::map<std::string, double>{{"main/loss", values[i - 1]}};
        });
    };
    auto a_updater = make_updater();
    auto a = EarlyStoppingTrigger::make({.patience = 3, .max_trigger = {4, "iteration"}});
    Trainer first{a_updater, a, dir.file("a")};
    first.run();
    // max_trigger fires at 4 before the check of 4.6: one check without improvement (4.5).
    CHECK(a_updater->iteration() == 4);
    CHECK(a->count() == 1);
    const auto keys = rensa::testing::saved_keys(first);
    CHECK(keys.count("stop_trigger/count") == 1);
    CHECK(keys.count("stop_trigger/max_trigger/previous_iteration") == 1);
    serializers::save_npz(dir.file("s.npz"), first);

    auto b_updater = make_updater();
    auto b = EarlyStoppingTrigger::make({.patience = 3, .max_trigger = {100, "iteration"}});
    Trainer second{b_updater, b, dir.file("b")};
    serializers::load_npz(dir.file("s.npz"), second);
    CHECK(b->count() == 1);
    CHECK(b->best() == 4.0);
    second.run();
    CHECK(b_updater->iteration() == 6);  // 4.7 and 4.8: the second and third checks without improvement
    CHECK(b->count() == 3);
}
