#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "distributed/checkpoint.h"
#include "tests/distributed/training/mn_training_testing.h"
#include "tests/training/training_testing.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::allgather_values;
using rensa::testing::mn_comm;
namespace fs = std::filesystem;

// A trainer over the tiny data set that stops at `stop` iterations; the model is seeded
// with `seed` (different seeds give different starting weights).
struct Run {
    testing::TinySetup setup;
    std::unique_ptr<training::Trainer> trainer;
};

Run make_run(uint64_t seed, int64_t stop, const std::string& out) {
    Run run{testing::tiny_setup(24, 4, /*shuffle=*/false, seed), nullptr};
    run.trainer = std::make_unique<training::Trainer>(run.setup.updater, training::TriggerArg{stop, "iteration"}, out);
    return run;
}

std::vector<double> weights(const Run& run) {
    return run.setup.model->predictor->params()[0].array().to_vector<double>();
}

bool exists(const std::string& dir, const std::string& name) { return fs::exists(fs::path{dir} / name); }

}  // namespace

TEST_CASE("mn training: checkpointer resumes at the newest common iteration", "[distributed][training]") {
    const auto& comm = mn_comm();
    const int rank = comm->rank(), size = comm->size();
    const testing::SharedTempDir dir{"checkpoint"};
    std::vector<double> at4, at6;
    {
        Run run = make_run(1, 6, dir.str());
        run.trainer->extend(distributed::create_multi_node_checkpointer("run", comm, {.cleanup = false}),
                            {.trigger = {2, "iteration"}});
        // Collected every save, keeping the newest 2 common ones.
        run.trainer->extend(distributed::create_multi_node_checkpointer(
                                "gc", comm, {.cp_interval = 2, .gc_interval = 1, .cleanup = false}),
                            {.name = "gc", .trigger = {2, "iteration"}});
        run.trainer->extend(training::make_extension([&](training::Trainer&) { at4 = weights(run); },
                                                     {.name = "at4", .trigger = {4, "iteration"}}));
        run.trainer->run();
        at6 = weights(run);
    }
    const std::string mine = "." + std::to_string(rank) + ".";
    for (const int64_t i : {2, 4, 6}) CHECK(exists(dir.str(), "run" + mine + std::to_string(i)));
    CHECK(!exists(dir.str(), "gc" + mine + "2"));
    CHECK(exists(dir.str(), "gc" + mine + "4"));
    CHECK(exists(dir.str(), "gc" + mine + "6"));

    // Rank 0 has an extra newer checkpoint; the last rank lost its newest one.
    if (rank == 0) fs::copy_file(fs::path{dir.str()} / "run.0.6", fs::path{dir.str()} / "run.0.8");
    if (size > 1 && rank == size - 1) fs::remove(fs::path{dir.str()} / ("run" + mine + "6"));
    comm->barrier();
    const int64_t expected = size > 1 ? 4 : 8;  // alone, rank 0's extra one is common

    Run resumed = make_run(2, 6, dir.str());
    auto checkpointer = distributed::create_multi_node_checkpointer("run", comm);
    resumed.trainer->extend(checkpointer, {.trigger = {2, "iteration"}});
    bool resumed_called = false;
    const std::optional<int64_t> loaded =
        checkpointer->maybe_load(*resumed.trainer, {.on_resumed = [&] { resumed_called = true; }});
    REQUIRE(loaded.has_value());
    CHECK(*loaded == expected);
    CHECK(resumed_called);
    CHECK(allgather_values({*loaded}) == std::vector<int64_t>(static_cast<size_t>(size), expected));
    CHECK(resumed.trainer->updater().iteration() == (size > 1 ? 4 : 6));
    CHECK(weights(resumed) == (size > 1 ? at4 : at6));
    // Continuing reaches the uninterrupted run's weights.
    resumed.trainer->run();
    const auto final_weights = weights(resumed);
    REQUIRE(final_weights.size() == at6.size());
    for (size_t i = 0; i < at6.size(); ++i) CHECK(final_weights[i] == Approx(at6[i]).margin(1e-6));
    // A clean run removes the checkpoints it tracks (the common ones and its own new ones).
    CHECK(!exists(dir.str(), "run" + mine + "2"));
    CHECK(!exists(dir.str(), "run" + mine + "4"));
}

TEST_CASE("mn training: checkpointer falls back when the newest file is unreadable", "[distributed][training]") {
    const auto& comm = mn_comm();
    const int rank = comm->rank(), size = comm->size();
    const testing::SharedTempDir dir{"checkpoint_fallback"};
    int64_t value = 0;
    const training::extensions::SnapshotTarget target = [&value](const serializers::Serializer& s) {
        s("value", value);
    };
    auto writer = distributed::create_multi_node_checkpointer("obj", comm, {.path = dir.str()});
    for (const int64_t it : {1, 2}) {
        value = 100 * it + rank;
        writer->save(target, it);
    }
    CHECK(writer->iterations() == std::vector<int64_t>{1, 2});
    // The last rank's newest file is garbage: every rank goes back to iteration 1.
    if (rank == size - 1) std::ofstream{fs::path{dir.str()} / ("obj." + std::to_string(rank) + ".2")} << "junk";
    comm->barrier();
    value = -1;
    auto reader = distributed::create_multi_node_checkpointer("obj", comm);
    CHECK(reader->maybe_load(target, {.path = dir.str()}) == std::optional<int64_t>{1});
    CHECK(value == 100 + rank);
    // No checkpoint of another name: nothing happens.
    value = -1;
    auto none = distributed::create_multi_node_checkpointer("other", comm);
    CHECK(!none->maybe_load(target, {.path = dir.str()}).has_value());
    CHECK(value == -1);
    CHECK_THROWS_AS(distributed::create_multi_node_checkpointer("", comm), ValueError);
    CHECK_THROWS_AS(distributed::create_multi_node_checkpointer("x", comm, {.cp_interval = 0}), ValueError);
    CHECK_THROWS_AS(distributed::create_multi_node_checkpointer("y", comm)->save(target, 3), ValueError);  // no folder
}

TEST_CASE("mn training: multi_node_snapshot saves on masters and loads the replicas", "[distributed][training]") {
    const auto& comm = mn_comm();
    const int rank = comm->rank(), size = comm->size();
    const testing::SharedTempDir dir{"mn_snapshot"};
    std::vector<double> trained;
    const training::extensions::SnapshotOptions options{.filename = "snap_{.updater.iteration}", .autoload = true};
    {
        Run run = make_run(1, 4, dir.str());
        // Sets {0} and {1, ..., size-1}: ranks 0 and 1 write.
        auto snapshot = distributed::multi_node_snapshot(comm, options, {{0}});
        CHECK(snapshot->master() == (rank == 0 ? 0 : 1));
        run.trainer->extend(snapshot, {.trigger = {2, "iteration"}});
        run.trainer->run();
        trained = weights(run);
    }
    const bool writes = rank <= 1;
    CHECK(exists(dir.str(), "snap_4." + std::to_string(rank)) == writes);
    CHECK(exists(dir.str(), "snap_2." + std::to_string(rank)) == writes);
    comm->barrier();
    // A restart: masters autoload their newest file and send it to their set.
    Run resumed = make_run(2, 6, dir.str());
    resumed.trainer->extend(distributed::multi_node_snapshot(comm, options, {{0}}), {.trigger = {2, "iteration"}});
    resumed.trainer->get_extension("_MultiNodeSnapshot").initialize(*resumed.trainer);
    CHECK(resumed.trainer->updater().iteration() == 4);
    CHECK(weights(resumed) == trained);
    CHECK_THROWS_AS(distributed::multi_node_snapshot(comm, options, {{size}}), ValueError);
    CHECK_THROWS_AS(distributed::multi_node_snapshot(comm, options, {{0}, {0}}), ValueError);
}
