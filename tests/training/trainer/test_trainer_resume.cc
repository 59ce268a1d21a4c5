#include <catch2/catch.hpp>

#include "serializers/npz.h"
#include "tests/training/trainer/trainer_testing.h"
#include "training/extensions/log_report.h"
#include "training/triggers/interval_trigger.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using rensa::testing::RecordingExtension;
using rensa::testing::TempDir;
using rensa::testing::tiny_setup;

std::vector<float> weights(const rensa::testing::TinySetup& s) {
    return s.model->predictor->param("W").array().to_vector<float>();
}

}  // namespace

TEST_CASE("Trainer resumes from a snapshot at the saved iteration with consistent triggers", "[training][trainer]") {
    TempDir dir{"resume"};
    const std::string snapshot = dir.file("snapshot.npz");
    // 10 examples, batch 4 (shuffled): epochs end at iterations 3, 5, 8, 10, 13.
    // Uninterrupted reference run of 12 iterations.
    auto ref = tiny_setup(10, 4, true, 7);
    Trainer ref_trainer{ref.updater, {12, "iteration"}, dir.file("ref")};
    auto ref_epoch = std::make_shared<RecordingExtension>("epoch");
    auto ref_iter = std::make_shared<RecordingExtension>("iter");
    ref_trainer.extend(ref_epoch, {.trigger = {1, "epoch"}});
    ref_trainer.extend(ref_iter, {.trigger = {4, "iteration"}});
    ref_trainer.run();
    CHECK(ref_epoch->calls == std::vector<int64_t>{3, 5, 8, 10});
    CHECK(ref_iter->calls == std::vector<int64_t>{4, 8, 12});

    // The same run interrupted after iteration 6 (mid-epoch) ...
    auto a = tiny_setup(10, 4, true, 7);
    Trainer first{a.updater, {6, "iteration"}, dir.file("a")};
    auto a_epoch = std::make_shared<RecordingExtension>("epoch");
    auto a_iter = std::make_shared<RecordingExtension>("iter");
    first.extend(a_epoch, {.trigger = {1, "epoch"}});
    first.extend(a_iter, {.trigger = {4, "iteration"}});
    first.run();
    CHECK(a_epoch->calls == std::vector<int64_t>{3, 5});
    serializers::save_npz(snapshot, first);

    // ... and resumed in a fresh process-like setup (different initial weights).
    auto b = tiny_setup(10, 4, true, 99);
    Trainer second{b.updater, {12, "iteration"}, dir.file("b")};
    auto b_epoch = std::make_shared<RecordingExtension>("epoch");
    auto b_iter = std::make_shared<RecordingExtension>("iter");
    second.extend(b_epoch, {.trigger = {1, "epoch"}});
    second.extend(b_iter, {.trigger = {4, "iteration"}});
    serializers::load_npz(snapshot, second);
    CHECK(b.updater->iteration() == 6);
    CHECK(b.optimizer->t == 6);
    CHECK(weights(b) == weights(a));
    CHECK(second.elapsed_time() == Approx(first.elapsed_time()));
    second.run();
    CHECK(b.updater->iteration() == 12);
    CHECK(b_epoch->calls == std::vector<int64_t>{8, 10});
    CHECK(b_iter->calls == std::vector<int64_t>{8, 12});
    CHECK(weights(b) == weights(ref));  // bit for bit
    CHECK(second.elapsed_time() >= first.elapsed_time());
}

TEST_CASE("Trainer resumed at an epoch boundary does not fire the epoch trigger twice", "[training][trainer]") {
    TempDir dir{"resume_boundary"};
    const std::string snapshot = dir.file("snapshot.npz");
    auto a = tiny_setup(8, 4);
    Trainer first{a.updater, {2, "epoch"}, dir.file("a")};
    auto a_epoch = std::make_shared<RecordingExtension>("epoch");
    first.extend(a_epoch, {.trigger = {1, "epoch"}});
    first.run();
    CHECK(a_epoch->calls == std::vector<int64_t>{2, 4});
    serializers::save_npz(snapshot, first);

    auto b = tiny_setup(8, 4);
    Trainer second{b.updater, {3, "epoch"}, dir.file("b")};
    auto b_epoch = std::make_shared<RecordingExtension>("epoch");
    second.extend(b_epoch, {.trigger = {1, "epoch"}});
    serializers::load_npz(snapshot, second);
    second.run();
    CHECK(b.updater->iteration() == 6);
    CHECK(b_epoch->calls == std::vector<int64_t>{6});
}

TEST_CASE("Trainer load_npz of a snapshot missing an extension changes nothing", "[training][trainer]") {
    TempDir dir{"resume_missing"};
    const std::string snapshot = dir.file("snapshot.npz");
    auto a = tiny_setup(8, 4);
    Trainer first{a.updater, {3, "iteration"}, dir.file("a")};
    first.run();
    serializers::save_npz(snapshot, first);

    auto b = tiny_setup(8, 4, false, 5);
    Trainer second{b.updater, {6, "iteration"}, dir.file("b")};
    second.extend(std::make_shared<RecordingExtension>("extra"), {.trigger = {1, "epoch"}});
    const auto before = weights(b);
    CHECK_THROWS_AS(serializers::load_npz(snapshot, second), KeyError);
    CHECK(b.updater->iteration() == 0);
    CHECK(weights(b) == before);
}

namespace {

// A writer (like Evaluator) reporting "val" = 100 + iteration, called before training too, and a
// LogReport also called before training (Chainer's MNIST example), on a trainer of `setup`.
struct ValidatedTrainer {
    std::unique_ptr<Trainer> trainer;
    std::shared_ptr<RecordingExtension> early;
    std::shared_ptr<extensions::LogReport> log;
};

ValidatedTrainer validated_trainer(const rensa::testing::TinySetup& setup, int64_t epochs, const std::string& out) {
    ValidatedTrainer v{std::make_unique<Trainer>(setup.updater, TriggerArg{epochs, "epoch"}, out),
                       std::make_shared<RecordingExtension>("early"), std::make_shared<extensions::LogReport>()};
    auto validation = make_extension(
        [](Trainer& t) {
            report({{"val", rensa::testing::scalar(100.0 + static_cast<double>(t.updater().iteration()))}});
        },
        {.name = "val", .trigger = {1, "epoch"}, .priority = kPriorityWriter});
    v.trainer->extend(validation, {.call_before_training = true});
    v.trainer->extend(v.early, {.trigger = {1, "epoch"}, .call_before_training = true});
    v.trainer->extend(v.log, {.call_before_training = true});
    return v;
}

std::vector<double> logged(const extensions::LogReport& log, const std::string& key) {
    std::vector<double> out;
    for (const auto& entry : log.log()) out.push_back(entry.count(key) ? entry.at(key) : -1.0);
    return out;
}

}  // namespace

TEST_CASE("Trainer resumed from a snapshot does not call the call_before_training extensions again",
          "[training][trainer]") {
    TempDir dir{"resume_before_training"};
    const std::string snapshot = dir.file("snapshot.npz");
    // 8 examples, batch 4: epochs end at iterations 2 and 4.
    auto ref = tiny_setup(8, 4);
    ValidatedTrainer straight = validated_trainer(ref, 2, dir.file("ref"));
    straight.trainer->run();
    CHECK(straight.early->calls == std::vector<int64_t>{0, 2, 4});
    CHECK(logged(*straight.log, "iteration") == std::vector<double>{0, 2, 4});
    CHECK(logged(*straight.log, "val") == std::vector<double>{100, 102, 104});

    auto a = tiny_setup(8, 4);
    ValidatedTrainer first = validated_trainer(a, 1, dir.file("a"));
    first.trainer->run();
    serializers::save_npz(snapshot, *first.trainer);

    auto b = tiny_setup(8, 4);
    ValidatedTrainer second = validated_trainer(b, 2, dir.file("b"));
    serializers::load_npz(snapshot, *second.trainer);
    second.trainer->run();
    CHECK(second.early->calls == std::vector<int64_t>{4});  // no call at the resume point (iteration 2)
    // The epoch-2 entry holds epoch 2's value only, not its mean with a re-evaluation at iteration 2.
    CHECK(logged(*second.log, "iteration") == std::vector<double>{0, 2, 4});
    CHECK(logged(*second.log, "val") == std::vector<double>{100, 102, 104});
}
