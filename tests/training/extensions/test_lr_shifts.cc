// The hyperparameter schedules against their formulas, through the optimizer's
// hyperparameters (and the rules that fall back to them), and their resume.

#include <catch2/catch.hpp>
#include <cmath>

#include "serializers/npz.h"
#include "tests/training/extensions/extensions_testing.h"
#include "training/extensions/lr_shifts.h"

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::extensions;
using rensa::testing::FakeUpdater;
using rensa::testing::TempDir;
using rensa::testing::ext::tiny_sgd;

namespace {

struct ShiftRig {
    std::shared_ptr<optimizers::SGD> optimizer = tiny_sgd(0.1);
    std::shared_ptr<FakeUpdater> updater = std::make_shared<FakeUpdater>(
        std::map<std::string, std::shared_ptr<optimizers::Optimizer>>{{"main", optimizer}});
    Trainer trainer{updater};

    double lr() const { return optimizer->hyperparam().get("lr"); }
    // What the parameter's own rule reads (See Note [Hyperparameter fallback]).
    double rule_lr() const {
        const links::Parameter& w = optimizer->target().param("W");
        return dynamic_cast<optimizers::UpdateRule&>(*w.update_rule()).hyperparam().get("lr");
    }
};

// The values set by initialize() and then by each of `calls` calls.
std::vector<double> schedule(Shift& shift, ShiftRig& rig, int calls) {
    shift.initialize(rig.trainer);
    std::vector<double> values{rig.lr()};
    for (int i = 0; i < calls; ++i) {
        shift(rig.trainer);
        values.push_back(rig.lr());
    }
    return values;
}

void check_values(const std::vector<double>& got, const std::vector<double>& expected) {
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("call " << i);
        CHECK(got[i] == Approx(expected[i]).epsilon(1e-12));
    }
}

}  // namespace

TEST_CASE("ExponentialShift: follows init times rate to the t", "[training][extensions]") {
    ShiftRig rig;
    ExponentialShift shift{"lr", 0.5};
    const std::vector<double> got = schedule(shift, rig, 4);
    check_values(got, {0.1, 0.05, 0.025, 0.0125, 0.00625});
    CHECK(rig.rule_lr() == Approx(0.00625));  // the rules see the optimizer's value
    CHECK(shift.t() == 4);
}

TEST_CASE("ExponentialShift: stops at its target and takes init", "[training][extensions]") {
    ShiftRig rig;
    ExponentialShift down{"lr", 0.5, {.init = 1.0, .target = 0.3}};
    check_values(schedule(down, rig, 3), {1.0, 0.5, 0.3, 0.3});
    ExponentialShift up{"lr", 2.0, {.init = 1.0, .target = 5.0}};
    check_values(schedule(up, rig, 4), {1.0, 2.0, 4.0, 5.0, 5.0});
    CHECK_THROWS_AS(ExponentialShift("lr", -1.0), ValueError);
}

TEST_CASE("LinearShift: moves linearly within time_range", "[training][extensions]") {
    ShiftRig rig;
    LinearShift shift{"lr", {1.0, 2.0}, {2, 6}};
    // t <= 2: 1; t >= 6: 2; between: 1 + (t - 2) / 4.
    check_values(schedule(shift, rig, 8), {1.0, 1.0, 1.0, 1.25, 1.5, 1.75, 2.0, 2.0, 2.0});
    CHECK_THROWS_AS(LinearShift("lr", {1.0, 2.0}, {3, 3}), ValueError);
}

TEST_CASE("MultistepShift: multiplies by gamma at each step value", "[training][extensions]") {
    ShiftRig rig;
    MultistepShift shift{"lr", 1.0, 0.1, {2, 5}};
    check_values(schedule(shift, rig, 6), {1.0, 1.0, 0.1, 0.1, 0.1, 0.01, 0.01});
    CHECK_THROWS_AS(MultistepShift("lr", 1.0, 0.1, {5, 2}), ValueError);
}

TEST_CASE("StepShift: follows init times gamma to the floor of t/step", "[training][extensions]") {
    ShiftRig rig;
    StepShift shift{"lr", 0.5, 3};
    check_values(schedule(shift, rig, 7), {0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025});
    StepShift clipped{"lr", 0.5, 1, {.init = 1.0, .target = 0.4}};
    check_values(schedule(clipped, rig, 3), {1.0, 0.5, 0.4, 0.4});
    CHECK_THROWS_AS(StepShift("lr", 0.5, 0), ValueError);
}

TEST_CASE("PolynomialShift: follows init times 1 - t/max_count to the rate", "[training][extensions]") {
    ShiftRig rig;
    PolynomialShift shift{"lr", 2.0, 4, {.init = 1.0}};
    check_values(schedule(shift, rig, 5), {1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0});
    PolynomialShift clipped{"lr", 2.0, 4, {.init = 1.0, .target = 0.2}};
    check_values(schedule(clipped, rig, 3), {1.0, 0.5625, 0.25, 0.2});
}

TEST_CASE("WarmupShift: warms up evenly and then leaves the value", "[training][extensions]") {
    ShiftRig rig;
    WarmupShift shift{"lr", 0.0, 4, 1.0};
    check_values(schedule(shift, rig, 4), {0.0, 0.25, 0.5, 0.75, 1.0});
    rig.optimizer->set_lr(0.3);  // after the warm-up the value is not touched
    shift(rig.trainer);
    CHECK(rig.lr() == 0.3);
    WarmupShift from_optimizer{"lr", std::nullopt, 2, 1.0};
    rig.optimizer->set_lr(0.2);
    check_values(schedule(from_optimizer, rig, 2), {0.2, 0.6, 1.0});
}

TEST_CASE("InverseShift: follows init times 1 plus gamma t to the minus power", "[training][extensions]") {
    ShiftRig rig;
    InverseShift shift{"lr", 0.5, 2.0, {.init = 1.0}};
    std::vector<double> expected;
    for (int t = 0; t <= 4; ++t) expected.push_back(std::pow(1.0 + 0.5 * t, -2.0));
    check_values(schedule(shift, rig, 4), expected);
    InverseShift clipped{"lr", 1.0, 1.0, {.init = 1.0, .target = 0.3}};
    check_values(schedule(clipped, rig, 3), {1.0, 0.5, 1.0 / 3.0, 0.3});
    CHECK_THROWS_AS(InverseShift("lr", -0.5, 1.0), ValueError);
}

TEST_CASE("Shift: an unknown hyperparameter is a KeyError", "[training][extensions]") {
    ShiftRig rig;
    ExponentialShift shift{"alpha", 0.5};
    CHECK_THROWS_AS(shift.initialize(rig.trainer), KeyError);
}

TEST_CASE("Shift: resumes from its snapshot", "[training][extensions]") {
    TempDir dir{"shift_resume"};
    ShiftRig first;
    ExponentialShift shift{"lr", 0.5};
    schedule(shift, first, 3);
    serializers::save_npz(dir.file("shift.npz"), shift);

    ShiftRig second;  // a fresh optimizer at lr 0.1
    ExponentialShift resumed{"lr", 0.5};
    serializers::load_npz(dir.file("shift.npz"), resumed);
    CHECK(resumed.t() == 3);
    REQUIRE(resumed.last_value().has_value());
    CHECK(*resumed.last_value() == Approx(0.0125));
    resumed.initialize(second.trainer);
    CHECK(second.lr() == Approx(0.0125));
    resumed(second.trainer);
    shift(first.trainer);
    CHECK(second.lr() == Approx(first.lr()));
    CHECK(second.lr() == Approx(0.1 * std::pow(0.5, 4)));
}

TEST_CASE("Shift: a fresh one saves None as its last value", "[training][extensions]") {
    TempDir dir{"shift_none"};
    LinearShift shift{"lr", {1.0, 2.0}, {0, 4}};
    serializers::save_npz(dir.file("fresh.npz"), shift);
    LinearShift loaded{"lr", {1.0, 2.0}, {0, 4}};
    serializers::load_npz(dir.file("fresh.npz"), loaded);
    CHECK_FALSE(loaded.last_value().has_value());
    ShiftRig rig;
    loaded.initialize(rig.trainer);
    CHECK(rig.lr() == 1.0);
}

TEST_CASE("MultistepShift and WarmupShift: recompute their value from t on resume", "[training][extensions]") {
    TempDir dir{"shift_t_only"};
    ShiftRig rig;
    MultistepShift multistep{"lr", 1.0, 0.1, {2, 5}};
    WarmupShift warmup{"lr", 0.0, 4, 1.0};
    schedule(multistep, rig, 3);
    schedule(warmup, rig, 3);
    serializers::save_npz(dir.file("multistep.npz"), multistep);
    serializers::save_npz(dir.file("warmup.npz"), warmup);

    ShiftRig fresh;
    MultistepShift multistep2{"lr", 1.0, 0.1, {2, 5}};
    serializers::load_npz(dir.file("multistep.npz"), multistep2);
    multistep2.initialize(fresh.trainer);
    CHECK(fresh.lr() == Approx(0.1));  // t = 3: one step passed
    WarmupShift warmup2{"lr", 0.0, 4, 1.0};
    serializers::load_npz(dir.file("warmup.npz"), warmup2);
    warmup2.initialize(fresh.trainer);
    CHECK(fresh.lr() == Approx(0.75));
    warmup2(fresh.trainer);
    CHECK(fresh.lr() == Approx(1.0));
}

TEST_CASE("Shift: in a training loop reaches the optimizer every iteration", "[training][extensions]") {
    auto optimizer = tiny_sgd(0.1);
    auto updater = std::make_shared<FakeUpdater>(
        std::map<std::string, std::shared_ptr<optimizers::Optimizer>>{{"main", optimizer}});
    TempDir dir{"shift_loop"};
    Trainer trainer{updater, {5, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<ExponentialShift>("lr", 0.5));
    trainer.run();
    CHECK(optimizer->lr() == Approx(0.1 * std::pow(0.5, 5)));
    CHECK(trainer.get_extension<ExponentialShift>("ExponentialShift").t() == 5);
}
