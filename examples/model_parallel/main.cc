// ChainerMN's examples/mnist/train_mnist_model_parallel.py in C++: an MLP 784-n-n-10
// split over two processes with MultiNodeChainList. Rank 0 runs the first layer and the
// Classifier (loss and accuracy), rank 1 the two other layers; activations go forward and
// their gradients backward through differentiable send/recv. Run with exactly 2 processes:
//
//   mpiexec -n 2 ./build/examples/model_parallel --epoch 1
//
// Both ranks read the data set so they agree on the number of iterations; only rank 0
// uses it (rank 1's model takes no input, like ChainerMN's create_empty_dataset) and only
// rank 0 prints the report.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/random.h"
#include "distributed/communicator.h"
#include "distributed/links/multi_node_chain_list.h"
#include "examples/common/trainer_setup.h"
#include "functions/activation.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"
#include "training/datasets/mnist.h"
#include "training/extensions/dump_graph.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/log_report.h"
#include "training/extensions/print_report.h"
#include "training/extensions/progress_bar.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace {

namespace F = rensa::functions;
namespace L = rensa::links;
namespace dist = rensa::distributed;
namespace training = rensa::training;
namespace extensions = rensa::training::extensions;
using rensa::Variable;

// Rank 0, component A: the first layer; its output goes to rank 1.
class MLP0SubA : public L::Cloneable<MLP0SubA, L::Chain> {
public:
    std::shared_ptr<L::Linear> l1;
    explicit MLP0SubA(int64_t n_units) {
        register_link("l1", &MLP0SubA::l1, std::make_shared<L::Linear>(784, n_units));
    }
    using L::Chain::forward;
    Variable forward(const Variable& x) override { return F::relu((*l1)(x)); }
};

// Rank 0, component B: receives rank 1's output and returns it as the model output.
class MLP0SubB : public L::Cloneable<MLP0SubB, L::Chain> {
public:
    using L::Chain::forward;
    Variable forward(const Variable& y) override { return y; }
};

// Rank 1's only component: the two other layers, from rank 0 back to rank 0.
class MLP1Sub : public L::Cloneable<MLP1Sub, L::Chain> {
public:
    std::shared_ptr<L::Linear> l2, l3;
    MLP1Sub(int64_t n_units, int64_t n_out) {
        register_link("l2", &MLP1Sub::l2, std::make_shared<L::Linear>(n_units, n_units));
        register_link("l3", &MLP1Sub::l3, std::make_shared<L::Linear>(n_units, n_out));
    }
    using L::Chain::forward;
    Variable forward(const Variable& h0) override { return (*l3)(F::relu((*l2)(h0))); }
};

std::shared_ptr<dist::MultiNodeChainList> mlp0(const dist::CommunicatorPtr& comm, int64_t n_units) {
    auto model = std::make_shared<dist::MultiNodeChainList>(comm);
    model->add_link(std::make_shared<MLP0SubA>(n_units), {}, {1});
    model->add_link(std::make_shared<MLP0SubB>(), {1}, {});
    return model;
}

std::shared_ptr<dist::MultiNodeChainList> mlp1(const dist::CommunicatorPtr& comm, int64_t n_units, int64_t n_out) {
    auto model = std::make_shared<dist::MultiNodeChainList>(comm);
    model->add_link(std::make_shared<MLP1Sub>(n_units, n_out), {0}, {0});
    return model;
}

struct Args {
    int64_t batchsize = 100;
    int64_t epoch = 20;
    int64_t unit = 1000;
    std::string out = "result";
    std::string communicator = "naive";
    std::string dataset = "fashion-mnist";
    uint64_t seed = 0;
};

void add_options(CLI::App& app, Args& args) {
    examples::add_batch_options(app, args.batchsize, args.epoch);
    app.add_option("-u,--unit", args.unit, "Number of units")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("-o,--out", args.out, "Directory to output the result")->capture_default_str();
    app.add_option("--communicator", args.communicator, "Type of communicator")->capture_default_str();
    app.add_option("--dataset", args.dataset, "Dataset to train on")
        ->check(CLI::IsMember({"fashion-mnist", "mnist"}))
        ->capture_default_str();
    app.add_option("--seed", args.seed, "Random seed (weights)")->capture_default_str();
}

// Rank 0 reports; rank 1 only takes part in the evaluator's collectives.
void add_extensions(training::Trainer& trainer, const std::shared_ptr<extensions::Evaluator>& evaluator, int rank) {
    trainer.extend(evaluator);
    if (rank != 0) return;
    trainer.extend(std::make_shared<extensions::DumpGraph>("main/loss"));
    trainer.extend(std::make_shared<extensions::LogReport>());
    trainer.extend(std::make_shared<extensions::PrintReport>(std::vector<std::string>{
        "epoch", "main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy", "elapsed_time"}));
    trainer.extend(std::make_shared<extensions::ProgressBar>());
}

int run(const Args& args) {
    const dist::CommunicatorPtr comm = dist::create_communicator(args.communicator);
    RENSA_CHECK(comm->size() == 2, ValueError,
                "model_parallel: this example can only be executed on exactly 2 processes, got ", comm->size());
    const int rank = comm->rank();
    rensa::seed(args.seed + static_cast<uint64_t>(rank));
    if (rank == 0) {
        std::cout << "# unit: " << args.unit << "\n# minibatch-size: " << args.batchsize << "\n# epoch: " << args.epoch
                  << "\n# dataset: " << args.dataset << "\n# processes: 2 (model parallel)\n\n";
    }
    // Rank 0 trains a Classifier around its part; rank 1's part takes no input.
    std::shared_ptr<L::Link> model;
    std::shared_ptr<dist::MultiNodeChainList> part1;
    if (rank == 0) {
        model = std::make_shared<L::Classifier>(mlp0(comm, args.unit));
    } else {
        model = part1 = mlp1(comm, args.unit, 10);
    }
    auto optimizer = std::make_shared<rensa::optimizers::Adam>();
    optimizer->setup(model);

    const auto [train, test] =
        args.dataset == "mnist" ? training::datasets::get_mnist() : training::datasets::get_fashion_mnist();
    auto train_iter = std::make_shared<training::iterators::SerialIterator>(
        train, args.batchsize, training::iterators::SerialIteratorOptions{.shuffle = false});
    auto test_iter = std::make_shared<training::iterators::SerialIterator>(
        test, args.batchsize, training::iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});

    training::updaters::StandardUpdaterOptions updater_options{};
    extensions::EvaluatorOptions evaluator_options{};
    if (rank == 1) {
        updater_options.loss_func = [part1](const std::vector<Variable>&) { return (*part1)(); };
        evaluator_options.eval_func = [part1](const std::vector<Variable>&) { (void)(*part1)(); };
    }
    auto updater = std::make_shared<training::updaters::StandardUpdater>(train_iter, optimizer, updater_options);
    training::Trainer trainer{updater, {args.epoch, "epoch"}, args.out};
    auto evaluator = std::make_shared<extensions::Evaluator>(test_iter, model, evaluator_options);
    add_extensions(trainer, evaluator, rank);
    trainer.run();

    // One more pass over the test set (a collective pass: both ranks run it).
    const int status = examples::check_test_accuracy("model_parallel", *evaluator, 0.0, rank == 0);
    return rank == 0 ? status : 0;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    CLI::App app{"rensa example: an MLP on (Fashion-)MNIST split over 2 processes (ChainerMN's model parallelism)"};
    add_options(app, args);
    CLI11_PARSE(app, argc, argv);
    return examples::run_reporting_errors("model_parallel", [&] { return run(args); });
}
