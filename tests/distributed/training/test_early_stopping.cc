#include <catch2/catch.hpp>

#include "distributed/multi_node_early_stopping_trigger.h"
#include "tests/distributed/training/mn_training_testing.h"
#include "tests/training/training_testing.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::allgather_values;
using rensa::testing::mn_comm;

// The global mean of "metric" at iteration i: improves until 3, then not for 2 checks.
double global_mean(int64_t i) {
    static const double kMeans[] = {0, 10, 9, 8, 8.5, 8.7, 7, 6, 5, 4, 3, 2, 1};
    return i < 13 ? kMeans[i] : 0.0;
}

// Runs a trainer whose updater reports `metric(rank, iteration)` (or nothing when nullopt)
// under the multi-node early stopping trigger; returns the iteration it stopped at.
int64_t run_until_stop(const std::function<std::optional<double>(int rank, int64_t iteration)>& metric,
                       training::triggers::EarlyStoppingOptions options) {
    const int rank = mn_comm()->rank();
    auto updater = std::make_shared<testing::FakeUpdater>(4, [&](int64_t iteration) {
        Observation observation;
        if (const auto v = metric(rank, iteration)) observation.emplace("metric", testing::scalar(*v));
        return observation;
    });
    const testing::SharedTempDir dir{"early_stopping"};
    training::Trainer trainer{updater, distributed::create_multi_node_early_stopping_trigger(mn_comm(), options),
                              dir.str()};
    trainer.run();
    return updater->iteration();
}

}  // namespace

TEST_CASE("mn training: early stopping on the mean over ranks stops every rank together", "[distributed][training]") {
    const int size = mn_comm()->size();
    const training::triggers::EarlyStoppingOptions options{
        .check_trigger = {1, "iteration"}, .monitor = "metric", .patience = 2, .max_trigger = {50, "iteration"}};
    // Rank offsets sum to zero, so the mean is global_mean; alone, ranks would stop elsewhere.
    const auto spread = [size](int rank, int64_t i) -> std::optional<double> {
        const double offset = double(rank) - double(size - 1) / 2.0;
        return global_mean(i) + offset * (i % 2 == 1 ? 5.0 : -5.0);
    };
    const int64_t stopped = run_until_stop(spread, options);
    CHECK(stopped == 5);
    const std::vector<int64_t> all = allgather_values({stopped});
    CHECK(std::all_of(all.begin(), all.end(), [](int64_t v) { return v == 5; }));

    // Only the last rank observes the monitor: the others follow its values.
    const auto last_only = [size](int rank, int64_t i) -> std::optional<double> {
        if (rank != size - 1) return std::nullopt;
        return global_mean(i);
    };
    CHECK(run_until_stop(last_only, options) == 5);

    // Nobody observes it: only max_trigger stops.
    const auto nobody = [](int, int64_t) -> std::optional<double> { return std::nullopt; };
    CHECK(run_until_stop(nobody, {.check_trigger = {1, "iteration"},
                                  .monitor = "metric",
                                  .patience = 1,
                                  .max_trigger = {7, "iteration"}}) == 7);

    // "max" mode: the mean keeps falling, so it never improves after the first check.
    CHECK(run_until_stop(spread, {.check_trigger = {2, "iteration"},
                                  .monitor = "metric",
                                  .patience = 2,
                                  .mode = "max",
                                  .max_trigger = {50, "iteration"}}) == 6);
}

TEST_CASE("mn training: early stopping trigger arguments", "[distributed][training]") {
    CHECK_THROWS_AS(distributed::create_multi_node_early_stopping_trigger(nullptr), ValueError);
    CHECK_THROWS_AS(distributed::create_multi_node_early_stopping_trigger(mn_comm(), {.mode = "up"}), ValueError);
    CHECK_THROWS_AS(distributed::create_multi_node_early_stopping_trigger(mn_comm(), {.patience = -1}), ValueError);
    const auto trigger =
        distributed::create_multi_node_early_stopping_trigger(mn_comm(), {.max_trigger = {9, "epoch"}});
    CHECK(trigger->get_training_length() == std::optional<std::pair<int64_t, std::string>>{{9, "epoch"}});
}
