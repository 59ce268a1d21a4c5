// Resuming a multi-node run from a snapshot loses no update (issue 18): a run stopped at
// iteration 7, snapshotted and resumed in fresh objects ends bit for bit where the same
// run done straight ends, with the same optimizer t (Note [Multi-node update]).

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/random.h"
#include "distributed/multi_node_optimizer.h"
#include "optimizers/adam.h"
#include "serializers/npz.h"
#include "tests/distributed/optimizer/optimizer_testing.h"
#include "tests/distributed/training/mn_training_testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

using namespace rensa;
using namespace rensa::test_mnopt;

namespace {

constexpr int64_t kRows = 8;  // per rank; batch 3: epochs end mid-batch
constexpr int64_t kBatchSize = 3;

// This rank's rows: x (kRows, kIn), t (kRows, kOut), different on every rank.
std::vector<Array> rank_rows(int rank) {
    std::vector<double> x(kRows * kIn), t(kRows * kOut);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.31 * i + rank);
    for (size_t i = 0; i < t.size(); ++i) t[i] = std::sin(0.17 * i - rank);
    return {Array::from_vector(x, {kRows, kIn}).astype(Dtype::kFloat32),
            Array::from_vector(t, {kRows, kOut}).astype(Dtype::kFloat32)};
}

// A multi-node training job in fresh objects: rank-dependent initial weights (the first
// broadcast matters), Adam, a shuffling iterator.
struct Job {
    std::shared_ptr<Mlp> model = std::make_shared<Mlp>();
    std::shared_ptr<optimizers::Optimizer> opt;
    std::unique_ptr<training::Trainer> trainer;

    Job(const std::string& comm_name, int64_t stop_iteration, const std::string& out) {
        rensa::seed(42);  // the same shuffling seed in every job, as a restarted process has
        const distributed::CommunicatorPtr& comm = comm_of(comm_name);
        fill_params(*model, comm->rank());
        opt = distributed::create_multi_node_optimizer(std::make_shared<optimizers::Adam>(), comm);
        opt->setup(model);
        auto dataset = std::make_shared<training::datasets::TupleDataset>(rank_rows(comm->rank()));
        auto iterator = std::make_shared<training::iterators::SerialIterator>(dataset, kBatchSize);
        auto updater = std::make_shared<training::updaters::StandardUpdater>(
            iterator, opt,
            training::updaters::StandardUpdaterOptions{.loss_func = [m = model](const std::vector<Variable>& in) {
                return mse(*m, {in[0], in[1]});
            }});
        trainer = std::make_unique<training::Trainer>(updater, training::TriggerArg{stop_iteration, "iteration"}, out);
    }
};

std::vector<std::vector<float>> weights(const links::Link& model) {
    std::vector<std::vector<float>> out;
    for (const auto& [name, p] : model.namedparams(false)) out.push_back(p.array().to_vector<float>());
    return out;
}

}  // namespace

TEST_CASE("mn training: a resumed run ends bit for bit where the straight run ends", "[distributed][training]") {
    for (const char* comm_name : {"flat", "naive"}) {
        distributed::Communicator& comm = *comm_of(comm_name);
        const testing::SharedTempDir dir{std::string("resume_") + comm_name};
        const std::string snapshot = dir.str() + "/snapshot_rank" + std::to_string(comm.rank()) + ".npz";

        Job straight{comm_name, 12, dir.str() + "/straight"};
        straight.trainer->run();

        {
            Job first{comm_name, 7, dir.str() + "/first"};
            first.trainer->run();
            serializers::save_npz(snapshot, *first.trainer);
        }
        Job resumed{comm_name, 12, dir.str() + "/resumed"};
        serializers::load_npz(snapshot, *resumed.trainer);
        resumed.trainer->run();

        INFO(comm_name);
        // Rank-dependent weights: the straight run's first step broadcasts and skips; alone it updates.
        CHECK(straight.opt->t == (comm.size() == 1 ? 12 : 11));
        CHECK(resumed.opt->t == straight.opt->t);
        CHECK(weights(*resumed.model) == weights(*straight.model));
        CHECK(cross_rank_spread(comm, *resumed.model) == 0.0);
    }
}
