#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "tests/training/trainer/trainer_testing.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using rensa::testing::RecordingExtension;
using rensa::testing::TempDir;
using rensa::testing::tiny_setup;

// A StandardUpdater that logs its finalize into the test's event list.
class LoggingUpdater final : public updaters::StandardUpdater {
public:
    LoggingUpdater(IteratorPtr it, std::shared_ptr<optimizers::Optimizer> opt, std::vector<std::string>* events)
        : StandardUpdater(std::move(it), std::move(opt)), events_{events} {}
    void finalize() override {
        events_->push_back("updater:finalize");
        StandardUpdater::finalize();
    }

private:
    std::vector<std::string>* events_;
};

}  // namespace

TEST_CASE("Trainer runs until the epoch stop trigger fires", "[training][trainer]") {
    TempDir dir{"stop_epoch"};
    auto s = tiny_setup(10, 4);
    Trainer trainer{s.updater, {3, "epoch"}, dir.file("a/b")};
    trainer.run();
    // Epoch 3 is reached at iteration 8 (epoch_detail 3.2).
    CHECK(s.updater->iteration() == 8);
    CHECK(s.updater->epoch() == 3);
    CHECK(std::filesystem::is_directory(dir.file("a/b")));
    CHECK(trainer.stop_trigger()->get_training_length().value() == std::make_pair(int64_t{3}, std::string{"epoch"}));
}

TEST_CASE("Trainer calls extensions by priority with ties in the order added", "[training][trainer]") {
    TempDir dir{"priority"};
    std::vector<std::string> events;
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {2, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<RecordingExtension>("reader", &events, kPriorityReader));
    trainer.extend(std::make_shared<RecordingExtension>("writer", &events, kPriorityWriter));
    trainer.extend(std::make_shared<RecordingExtension>("editor", &events, kPriorityEditor));
    trainer.extend(std::make_shared<RecordingExtension>("reader2", &events, kPriorityReader));
    trainer.extend(std::make_shared<RecordingExtension>("low", &events), {.priority = 50});
    trainer.run();
    const std::vector<std::string> expected = {
        "writer:initialize", "editor:initialize", "reader:initialize", "reader2:initialize", "low:initialize",
        "writer:call",       "editor:call",       "reader:call",       "reader2:call",       "low:call",
        "writer:call",       "editor:call",       "reader:call",       "reader2:call",       "low:call",
        "writer:finalize",   "editor:finalize",   "reader:finalize",   "reader2:finalize",   "low:finalize"};
    CHECK(events == expected);
}

TEST_CASE("Trainer extend dedupes names and get_extension finds them", "[training][trainer]") {
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {1, "iteration"}, "unused"};
    auto a = std::make_shared<RecordingExtension>("rec");
    auto b = std::make_shared<RecordingExtension>("rec");
    auto c = std::make_shared<RecordingExtension>("other");
    trainer.extend(a);
    trainer.extend(b);
    trainer.extend(c, {.name = "rec"});
    CHECK(&trainer.get_extension("rec") == a.get());
    CHECK(&trainer.get_extension("rec_1") == b.get());
    CHECK(&trainer.get_extension<RecordingExtension>("rec_2") == c.get());
    CHECK_THROWS_AS(trainer.get_extension("other"), KeyError);
    CHECK_THROWS_WITH(trainer.get_extension("missing"), Catch::Contains("rec_1"));
    CHECK_THROWS_AS(trainer.extend(std::make_shared<RecordingExtension>("training")), ValueError);
    CHECK_THROWS_AS(trainer.extend(nullptr), ValueError);
}

TEST_CASE("Trainer call_before_training runs once at iteration 0 after initialize", "[training][trainer]") {
    TempDir dir{"before_training"};
    std::vector<std::string> events;
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {3, "iteration"}, dir.str()};
    auto ext = std::make_shared<RecordingExtension>("early", &events);
    auto plain = std::make_shared<RecordingExtension>("plain", &events);
    trainer.extend(ext, {.trigger = {2, "iteration"}, .call_before_training = true});
    trainer.extend(plain, {.trigger = {2, "iteration"}});
    trainer.run();
    CHECK(ext->calls == std::vector<int64_t>{0, 2});
    CHECK(plain->calls == std::vector<int64_t>{2});
    REQUIRE(events.size() >= 3);
    CHECK(events[0] == "early:initialize");
    CHECK(events[1] == "plain:initialize");
    CHECK(events[2] == "early:call");
}

TEST_CASE("Trainer calls on_error then finalize then rethrows", "[training][trainer]") {
    TempDir dir{"on_error"};
    std::vector<std::string> events;
    auto s = tiny_setup(8, 4);
    auto updater = std::make_shared<LoggingUpdater>(s.iterator, s.optimizer, &events);
    Trainer trainer{updater, {10, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<RecordingExtension>("a", &events, 300));
    trainer.extend(make_extension(
        [](Trainer& t) {
            if (t.updater().iteration() == 3) throw std::runtime_error("boom at 3");
        },
        {.name = "thrower", .priority = 200}));
    trainer.extend(std::make_shared<RecordingExtension>("c", &events, 100));
    CHECK_THROWS_WITH(trainer.run(), "boom at 3");
    CHECK(updater->iteration() == 3);
    const std::vector<std::string> tail(events.end() - 5, events.end());
    const std::vector<std::string> expected = {"a:on_error:boom at 3", "c:on_error:boom at 3", "a:finalize",
                                               "c:finalize", "updater:finalize"};
    CHECK(tail == expected);
    // "c" ran at iterations 1 and 2 only: the exception stopped iteration 3 before it.
    CHECK(std::count(events.begin(), events.end(), "c:call") == 2);
    CHECK(trainer.elapsed_time() >= 0.0);
}

TEST_CASE("Trainer finalizes on a normal end and refuses a second run or extend", "[training][trainer]") {
    TempDir dir{"second_run"};
    std::vector<std::string> events;
    auto s = tiny_setup(8, 4);
    auto updater = std::make_shared<LoggingUpdater>(s.iterator, s.optimizer, &events);
    Trainer trainer{updater, {2, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<RecordingExtension>("a", &events));
    trainer.run();
    CHECK(events.back() == "updater:finalize");
    CHECK(events[events.size() - 2] == "a:finalize");
    CHECK_THROWS_AS(trainer.run(), ValueError);
    CHECK_THROWS_AS(trainer.extend(std::make_shared<RecordingExtension>("b")), ValueError);
}

TEST_CASE("Trainer elapsed_time grows during the run and freezes at the end", "[training][trainer]") {
    TempDir dir{"elapsed"};
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {4, "iteration"}, dir.str()};
    std::vector<double> seen;
    trainer.extend(make_extension(
        [&seen](Trainer& t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            seen.push_back(t.elapsed_time());
        },
        {.name = "sleeper"}));
    CHECK(trainer.elapsed_time() == 0.0);
    trainer.run();
    REQUIRE(seen.size() == 4);
    for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] > seen[i - 1]);
    CHECK(seen.back() >= 0.08);
    const double final_time = trainer.elapsed_time();
    CHECK(final_time >= seen.back());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(trainer.elapsed_time() == final_time);
}

TEST_CASE("Trainer registers the model as observer main and fills observation", "[training][trainer]") {
    TempDir dir{"observation"};
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {2, "iteration"}, dir.str()};
    std::vector<std::vector<std::string>> keys;
    trainer.extend(make_extension(
        [&keys](Trainer& t) {
            std::vector<std::string> k;
            for (const auto& entry : t.observation) k.push_back(entry.first);
            keys.push_back(k);
        },
        {.name = "keys"}));
    trainer.run();
    REQUIRE(keys.size() == 2);
    CHECK(keys[0] == std::vector<std::string>{"main/accuracy", "main/loss"});
    CHECK(trainer.reporter().observer_name(s.model.get()) == "main");
    CHECK(trainer.reporter().observer_name(s.model->predictor.get()) == "main/predictor");
}

TEST_CASE("make_extension wraps a function with name trigger priority and hooks", "[training][trainer]") {
    TempDir dir{"make_extension"};
    std::vector<std::string> events;
    std::vector<int64_t> calls;
    auto ext = make_extension([&](Trainer& t) { calls.push_back(t.updater().iteration()); },
                              {.name = "hello",
                               .trigger = {2, "iteration"},
                               .priority = kPriorityWriter,
                               .initializer = [&](Trainer&) { events.push_back("init"); },
                               .finalizer = [&] { events.push_back("fin"); }});
    CHECK(ext->default_name() == "hello");
    CHECK(ext->priority() == kPriorityWriter);
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {5, "iteration"}, dir.str()};
    trainer.extend(ext);
    trainer.run();
    CHECK(calls == std::vector<int64_t>{2, 4});
    CHECK(events == std::vector<std::string>{"init", "fin"});
    CHECK_THROWS_AS(make_extension([](Trainer&) {}, {}), ValueError);
    auto plain = make_extension([](Trainer&) {}, {.name = "x"});
    CHECK(plain->priority() == kPriorityReader);
}

TEST_CASE("TriggerArg makes interval triggers and refuses bad units", "[training][trainer]") {
    CHECK(TriggerArg{}.empty());
    const TriggerArg arg{2, "epoch"};
    REQUIRE_FALSE(arg.empty());
    CHECK(arg.get()->get_training_length().value() == std::make_pair(int64_t{2}, std::string{"epoch"}));
    CHECK_THROWS_AS(TriggerArg(1, "epochs"), ValueError);
    CHECK_THROWS_AS(TriggerArg(0, "iteration"), ValueError);
}

TEST_CASE("Trainer without a stop trigger runs until an extension throws", "[training][trainer]") {
    TempDir dir{"no_stop"};
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {}, dir.str()};
    REQUIRE(trainer.stop_trigger() != nullptr);
    CHECK_FALSE(trainer.stop_trigger()->get_training_length().has_value());
    trainer.extend(
        make_extension([](Trainer&) { throw ValueError("stop here"); }, {.name = "stop", .trigger = {7, "iteration"}}));
    CHECK_THROWS_AS(trainer.run(), ValueError);
    CHECK(s.updater->iteration() == 7);
}

TEST_CASE("Trainer run raises IOError when out cannot be created", "[training][trainer]") {
    TempDir dir{"bad_out"};
    {
        std::ofstream file{dir.file("plain_file")};
        file << "x";
    }
    std::vector<std::string> events;
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {2, "iteration"}, dir.file("plain_file/sub")};
    trainer.extend(std::make_shared<RecordingExtension>("a", &events));
    CHECK_THROWS_AS(trainer.run(), IOError);
    CHECK(s.updater->iteration() == 0);
    CHECK(events.empty());
}

TEST_CASE("Trainer keeps the loop exception when on_error or finalize throw", "[training][trainer]") {
    TempDir dir{"handler_throws"};
    std::vector<std::string> events;
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {5, "iteration"}, dir.str()};
    struct Bad final : RecordingExtension {
        using RecordingExtension::RecordingExtension;
        void on_error(Trainer&, const std::exception&) override { throw std::runtime_error("handler failed"); }
        void finalize() override { throw std::runtime_error("finalize failed"); }
    };
    trainer.extend(std::make_shared<Bad>("bad", &events, 300));
    trainer.extend(std::make_shared<RecordingExtension>("good", &events, 100));
    trainer.extend(make_extension([](Trainer&) { throw ValueError("original"); },
                                  {.name = "thrower", .trigger = {2, "iteration"}}));
    CHECK_THROWS_WITH(trainer.run(), "original");
    CHECK(std::count(events.begin(), events.end(), "good:on_error:original") == 1);
    CHECK(events.back() == "good:finalize");
}

TEST_CASE("Trainer rethrows a finalize error after a clean loop", "[training][trainer]") {
    TempDir dir{"finalize_throws"};
    auto s = tiny_setup(8, 4);
    Trainer trainer{s.updater, {2, "iteration"}, dir.str()};
    bool other_finalized = false;
    trainer.extend(make_extension([](Trainer&) {}, {.name = "bad", .priority = 300, .finalizer = [] {
                                                        throw std::runtime_error("finalize failed");
                                                    }}));
    trainer.extend(make_extension([](Trainer&) {}, {.name = "ok", .finalizer = [&] { other_finalized = true; }}));
    CHECK_THROWS_WITH(trainer.run(), "finalize failed");
    CHECK(other_finalized);
    CHECK(s.updater->iteration() == 2);
}
