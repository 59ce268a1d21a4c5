// observe_value, observe_lr and MicroAverage in a training loop.

#include <catch2/catch.hpp>
#include <cmath>

#include "optimizers/adam.h"
#include "serializers/npz.h"
#include "tests/training/extensions/extensions_testing.h"
#include "training/extensions/micro_average.h"
#include "training/extensions/observe_value.h"

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::extensions;
using rensa::testing::FakeUpdater;
using rensa::testing::scalar;
using rensa::testing::TempDir;
using rensa::testing::ext::ObservationRecorder;
using rensa::testing::ext::tiny_sgd;

namespace {
using Optimizers = std::map<std::string, std::shared_ptr<optimizers::Optimizer>>;
}  // namespace

TEST_CASE("observe_value: records its function once per epoch", "[training][extensions]") {
    TempDir dir{"observe_value"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 4);
    Trainer trainer{updater, {8, "iteration"}, dir.str()};
    trainer.extend(
        observe_value("twice", [](Trainer& t) { return 2.0 * static_cast<double>(t.updater().iteration()); }));
    auto recorder = std::make_shared<ObservationRecorder>();
    trainer.extend(recorder);
    trainer.run();
    REQUIRE(recorder->seen.size() == 8);
    CHECK(recorder->seen[3].count("twice") == 0);  // default trigger: {1, "epoch"}
    CHECK(recorder->seen[4].at("twice") == 8.0);
    CHECK(recorder->seen[8].at("twice") == 16.0);
    CHECK(trainer.get_extension("_observe_value").priority() == kPriorityWriter);
}

TEST_CASE("observe_lr: reports the lr of the main optimizer", "[training][extensions]") {
    TempDir dir{"observe_lr"};
    auto sgd = tiny_sgd(0.25);
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", sgd}}, 2);
    Trainer trainer{updater, {3, "iteration"}, dir.str()};
    trainer.extend(observe_lr(), {.trigger = {1, "iteration"}});
    trainer.extend(observe_lr("main", "learning_rate"), {.trigger = {1, "iteration"}});
    auto recorder = std::make_shared<ObservationRecorder>();
    trainer.extend(recorder);
    trainer.run();
    CHECK(recorder->seen[1].at("lr") == 0.25);
    CHECK(recorder->seen[3].at("learning_rate") == 0.25);
}

TEST_CASE("observe_lr: of Adam is the Adam.lr of Chainer", "[training][extensions]") {
    auto adam = std::make_shared<optimizers::Adam>(optimizers::AdamOptions{.alpha = 0.01});
    adam->setup(tiny_sgd()->target_ptr());
    adam->t = 3;
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", adam}});
    Trainer trainer{updater};
    const auto ext = observe_lr();
    (*ext)(trainer);
    const double expected = 0.01 * std::sqrt(1 - std::pow(0.999, 3)) / (1 - std::pow(0.9, 3));
    CHECK(trainer.observation.at("lr").item<double>() == Approx(expected).epsilon(1e-12));
    CHECK(trainer.observation.at("lr").dtype() == Dtype::kFloat64);
    CHECK(trainer.observation.at("lr").ndim() == 0);
}

TEST_CASE("observe_lr: of an optimizer without lr is a KeyError", "[training][extensions]") {
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}});
    Trainer trainer{updater};
    CHECK_THROWS_AS((*observe_lr("other"))(trainer), KeyError);
    auto adam = std::make_shared<optimizers::Adam>();
    adam->setup(tiny_sgd()->target_ptr());
    Trainer adam_trainer{std::make_shared<FakeUpdater>(Optimizers{{"main", adam}})};
    CHECK_THROWS((*observe_lr())(adam_trainer));  // Adam's lr needs t > 0, as in Chainer
}

TEST_CASE("MicroAverage: reports sum of numerators over sum of denominators", "[training][extensions]") {
    TempDir dir{"micro_average"};
    auto report = [](int64_t i) {
        return Observation{{"correct", scalar(static_cast<double>(i))}, {"total", scalar(10.0)}};
    };
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 4, report);
    Trainer trainer{updater, {8, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<MicroAverage>("correct", "total", "accuracy"));
    auto recorder = std::make_shared<ObservationRecorder>();
    trainer.extend(recorder);
    trainer.run();
    CHECK(recorder->seen[3].count("accuracy") == 0);
    CHECK(recorder->seen[4].at("accuracy") == Approx((1 + 2 + 3 + 4) / 40.0));
    CHECK(recorder->seen[8].at("accuracy") == Approx((5 + 6 + 7 + 8) / 40.0));
}

TEST_CASE("MicroAverage: keeps its sums through a snapshot", "[training][extensions]") {
    TempDir dir{"micro_average_resume"};
    auto report = [](int64_t i) { return Observation{{"c", scalar(static_cast<double>(i))}, {"n", scalar(4.0)}}; };
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 10, report);
    Trainer trainer{updater, {3, "iteration"}, dir.str()};
    auto average = std::make_shared<MicroAverage>("c", "n", "ratio");
    trainer.extend(average);
    trainer.run();
    CHECK(average->numerator() == 6.0);
    CHECK(average->denominator() == 12.0);
    serializers::save_npz(dir.file("average.npz"), *average);
    MicroAverage loaded{"c", "n", "ratio"};
    serializers::load_npz(dir.file("average.npz"), loaded);
    CHECK(loaded.numerator() == 6.0);
    CHECK(loaded.denominator() == 12.0);
}

TEST_CASE("MicroAverage: skips iterations without both keys", "[training][extensions]") {
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}});
    Trainer trainer{updater};
    MicroAverage average{"c", "n", "ratio", {1, "iteration"}};
    trainer.observation = {{"c", scalar(3.0)}};
    average(trainer);
    CHECK(average.numerator() == 0.0);
    trainer.observation = {{"c", scalar(3.0)}, {"n", Array::from_vector<double>({1.0, 2.0}, Shape{2})}};
    CHECK_THROWS_AS(average(trainer), ValueError);  // a denominator must be one number
    CHECK(average.numerator() == 0.0);              // and nothing was added
}
