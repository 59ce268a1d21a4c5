// rensa_soak_prog: one job of the soak test (run_soak.py). Data-parallel training of a small MLP
// (Adam, a shuffling iterator, the flat communicator's gradient buckets) with a multi-node
// checkpointer; the job first resumes from the newest checkpoint every rank has in --dir.
//   mpiexec -n 2 rensa_soak_prog --dir D --iterations N [--checkpoint-every K]
//                                [--kill-at I --kill-rank R --kill-how HOW --kill-phase forward|update]
// With --kill-at, rank R ends itself at iteration I, in its forward pass or after its update,
// in one of these ways (HOW): sigkill, sigterm, _exit0, _exit1 (no atexit, so no rensa exit), or
// exception (uncaught). A job that completes writes each rank's parameters (raw bytes in sorted
// name order) and Adam's t to D/final.<rank>.bin. Rank 0 prints "resumed at iteration X".

#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/random.h"
#include "distributed/checkpoint.h"
#include "distributed/communicator.h"
#include "distributed/multi_node_optimizer.h"
#include "functions/activation.h"
#include "functions/loss.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "optimizers/adam.h"
#include "training/datasets/tuple_dataset.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace {

using namespace rensa;

constexpr int64_t kRows = 40, kBatch = 6, kIn = 6, kHidden = 16, kOut = 3;

struct Args {
    std::string dir;
    int64_t iterations = 60, checkpoint_every = 5;
    int64_t kill_at = -1, kill_rank = -1;
    std::string kill_how = "sigkill", kill_phase = "update";
};

Args parse_args(int argc, char** argv) {
    Args args;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--dir") args.dir = value;
        if (key == "--iterations") args.iterations = std::stoll(value);
        if (key == "--checkpoint-every") args.checkpoint_every = std::stoll(value);
        if (key == "--kill-at") args.kill_at = std::stoll(value);
        if (key == "--kill-rank") args.kill_rank = std::stoll(value);
        if (key == "--kill-how") args.kill_how = value;
        if (key == "--kill-phase") args.kill_phase = value;
    }
    if (args.dir.empty()) throw std::invalid_argument("rensa_soak_prog: --dir is required");
    return args;
}

class Mlp : public links::Cloneable<Mlp, links::Chain> {
public:
    std::shared_ptr<links::Linear> l1, l2;
    Mlp() {
        register_link("l1", &Mlp::l1, std::make_shared<links::Linear>(kIn, kHidden));
        register_link("l2", &Mlp::l2, std::make_shared<links::Linear>(kHidden, kOut));
    }
    Variable forward(const Variable& x) override { return (*l2)(F::tanh((*l1)(x))); }
};

// This rank's rows, different on every rank.
training::DatasetPtr rank_rows(int rank) {
    std::vector<double> x(kRows * kIn), t(kRows * kOut);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.29 * static_cast<double>(i) + rank);
    for (size_t i = 0; i < t.size(); ++i) t[i] = std::sin(0.13 * static_cast<double>(i) - rank);
    return std::make_shared<training::datasets::TupleDataset>(
        std::vector<Array>{Array::from_vector(x, {kRows, kIn}).astype(Dtype::kFloat32),
                           Array::from_vector(t, {kRows, kOut}).astype(Dtype::kFloat32)});
}

[[noreturn]] void end_rank(const std::string& how) {
    std::fflush(stdout);
    if (how == "sigkill") std::raise(SIGKILL);
    if (how == "sigterm") std::raise(SIGTERM);
    if (how == "_exit1") ::_exit(1);
    if (how == "exception") throw std::runtime_error("soak: planned failure");
    ::_exit(0);
}

void write_final(const Args& args, int rank, const Mlp& model, const optimizers::Optimizer& opt) {
    std::ofstream out(args.dir + "/final." + std::to_string(rank) + ".bin", std::ios::binary);
    for (const auto& [name, param] : model.namedparams(/*include_uninit=*/false)) {
        const Array data = param.array().copy();
        out.write(static_cast<const char*>(data.raw_data()), data.nbytes());
    }
    const int64_t t = opt.t;
    out.write(reinterpret_cast<const char*>(&t), sizeof t);
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse_args(argc, argv);
    rensa::seed(7);  // the same initial weights and shuffling seed in every job, as a restarted process has
    const distributed::CommunicatorPtr comm = distributed::create_communicator("flat");
    const int rank = comm->rank();
    auto model = std::make_shared<Mlp>();
    auto opt = distributed::create_multi_node_optimizer(std::make_shared<optimizers::Adam>(), comm);
    opt->setup(model);
    auto iterator = std::make_shared<training::iterators::SerialIterator>(rank_rows(rank), kBatch);
    training::Trainer* running = nullptr;
    const bool killer = rank == args.kill_rank && args.kill_at > 0;
    auto loss = [&, model](const std::vector<Variable>& in) {
        if (killer && args.kill_phase == "forward" && running->updater().iteration() + 1 == args.kill_at) {
            end_rank(args.kill_how);
        }
        return F::mean_squared_error((*model)(in[0]), in[1]);
    };
    auto updater = std::make_shared<training::updaters::StandardUpdater>(
        iterator, opt, training::updaters::StandardUpdaterOptions{.loss_func = loss});
    training::Trainer trainer(updater, training::TriggerArg{args.iterations, "iteration"}, args.dir);
    running = &trainer;
    auto checkpointer = distributed::create_multi_node_checkpointer("soak", comm, {.cp_interval = 3, .gc_interval = 2});
    trainer.extend(checkpointer, {.trigger = {args.checkpoint_every, "iteration"}});
    // On every rank and in every job: a snapshot holds the state of each extension's trigger.
    trainer.extend(training::make_extension(
        [&](training::Trainer& t) {
            if (killer && args.kill_phase == "update" && t.updater().iteration() == args.kill_at) {
                end_rank(args.kill_how);
            }
        },
        {.name = "kill", .trigger = {1, "iteration"}, .priority = -1000}));
    if (const std::optional<int64_t> resumed = checkpointer->maybe_load(trainer); resumed && rank == 0) {
        std::printf("resumed at iteration %lld\n", static_cast<long long>(*resumed));
    }
    std::fflush(stdout);
    trainer.run();
    write_final(args, rank, *model, *opt);
    return 0;
}
