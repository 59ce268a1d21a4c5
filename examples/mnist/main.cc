// Chainer's examples/mnist/train_mnist.py in C++: a multi-layer perceptron
// (784-1000-1000-10, ReLU) trained with Adam on Fashion-MNIST (or MNIST), with the
// usual trainer extensions: Evaluator, DumpGraph, LogReport, PrintReport, ProgressBar, snapshot,
// PlotReport, and --resume from a snapshot. Prints the final test accuracy and exits
// non-zero when training fails (or the accuracy is below --min-accuracy).
//
// Data parallel as ChainerMN's train_mnist.py when built with MPI: the same program runs
// alone or under `mpiexec -n N` (--communicator, default "flat"). Rank 0 loads the data
// and scatters shuffled shards, gradients are averaged by a multi-node optimizer, the
// evaluator reports the values over every shard, and rank 0 alone prints and writes files.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/device.h"
#include "core/error.h"
#include "core/random.h"
#include "examples/common/device.h"
#include "examples/common/multi_node.h"
#include "examples/common/trainer_setup.h"
#include "functions/activation.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"
#include "serializers/npz.h"
#include "training/datasets/mnist.h"
#include "training/extensions/evaluator.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace {

namespace F = rensa::functions;
namespace L = rensa::links;
namespace training = rensa::training;
namespace extensions = rensa::training::extensions;
using rensa::Variable;

// Network definition: three fully-connected layers; the input size is learnt from the
// first batch (Linear(None, n) in Chainer).
class MLP : public L::Cloneable<MLP, L::Chain> {
public:
    std::shared_ptr<L::Linear> l1, l2, l3;

    MLP(int64_t n_units, int64_t n_out) {
        register_link("l1", &MLP::l1, std::make_shared<L::Linear>(std::nullopt, n_units));
        register_link("l2", &MLP::l2, std::make_shared<L::Linear>(std::nullopt, n_units));
        register_link("l3", &MLP::l3, std::make_shared<L::Linear>(std::nullopt, n_out));
    }

    using L::Chain::forward;
    Variable forward(const Variable& x) override {
        const Variable h1 = F::relu((*l1)(x));
        const Variable h2 = F::relu((*l2)(h1));
        return (*l3)(h2);
    }
};

// The command line, with Chainer's option names and defaults.
// (examples::ClassifierArgs holds those mnist and convnet share: batchsize, frequency, out,
// resume, autoload, dataset, noplot, seed, min_accuracy.)
struct Args : examples::ClassifierArgs {
    int64_t epoch = 20;
    int64_t unit = 1000;
    std::string communicator = "flat";
    std::string allreduce_grad_dtype;  // empty: the grads' own dtype
    std::string device = "native";
};

void add_options(CLI::App& app, Args& args) {
    examples::add_batch_options(app, args.batchsize, args.epoch);
    examples::add_snapshot_options(app, args);
    app.add_option("-u,--unit", args.unit, "Number of units")->check(CLI::PositiveNumber)->capture_default_str();
    examples::add_dataset_options(app, args);
    app.add_option("-d,--device", args.device, "Device to train on: native or cuda:N")->capture_default_str();
#ifdef RENSA_HAVE_DISTRIBUTED
    app.add_option("--communicator", args.communicator, "Type of communicator (naive, flat, hierarchical, dummy)")
        ->capture_default_str();
    app.add_option("--allreduce-grad-dtype", args.allreduce_grad_dtype,
                   "Dtype the gradients are all-reduced in (float16, bfloat16, float32; default: their own)")
        ->check(CLI::IsMember({"", "float16", "bfloat16", "float32"}));
#endif
}

// Images as flat float32 vectors of 784 values in [0, 1], labels int32.
std::pair<training::DatasetPtr, training::DatasetPtr> load_dataset(const std::string& name) {
    return name == "mnist" ? training::datasets::get_mnist() : training::datasets::get_fashion_mnist();
}

// Rank 0 reads the data set (a failure there stops every rank with its message); every
// rank gets its shard: the training set shuffled, the test set in order.
std::pair<training::DatasetPtr, training::DatasetPtr> load_shards(const Args& args, const examples::MultiNode& mn) {
    std::pair<training::DatasetPtr, training::DatasetPtr> data;
    std::string error;
    if (mn.is_root()) {
        try {
            data = load_dataset(args.dataset);
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (error = mn.share_root_error(error); !error.empty()) {
        throw std::runtime_error(mn.is_root() ? error : "rank 0 could not load the data set: " + error);
    }
    return {mn.scatter(data.first, true, args.seed), mn.scatter(data.second, false, args.seed)};
}

void print_header(const Args& args, const examples::MultiNode& mn) {
    if (mn.size() > 1) {
        std::cout << "# processes: " << mn.size() << " (communicator: " << args.communicator
                  << (args.allreduce_grad_dtype.empty() ? "" : ", grads reduced in " + args.allreduce_grad_dtype)
                  << ")\n";
        // OpenMP reads its thread count at load time: too late to change it here.
        if (std::getenv("OMP_NUM_THREADS") == nullptr) {
            std::cout << "# note: OMP_NUM_THREADS is not set: each process runs one thread per core\n";
        }
    }
    std::cout << "# unit: " << args.unit << "\n# minibatch-size: " << args.batchsize << "\n# epoch: " << args.epoch
              << "\n# dataset: " << args.dataset << "\n\n";
}

int run(const Args& args) {
    const rensa::Device device = examples::select_device(args.device);
    rensa::seed(args.seed);
    const examples::MultiNode mn{args.communicator, args.allreduce_grad_dtype};
    if (mn.is_root()) print_header(args, mn);

    // A Classifier computes the softmax cross entropy loss and the accuracy and reports them.
    // The multi-node optimizer broadcasts rank 0's weights once the lazy Linears exist.
    auto model = std::make_shared<L::Classifier>(std::make_shared<MLP>(args.unit, 10));
    auto optimizer = mn.optimizer(std::make_shared<rensa::optimizers::Adam>());
    model->to_device(device);  // before setup, as Chainer's to_device then setup
    optimizer->setup(model);

    // --batchsize is per process (ChainerMN's train_mnist.py): N processes see N x batchsize.
    const auto [train, test] = load_shards(args, mn);
    auto train_iter = std::make_shared<training::iterators::SerialIterator>(train, args.batchsize);
    auto test_iter = std::make_shared<training::iterators::SerialIterator>(
        test, args.batchsize, training::iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});

    auto updater = std::make_shared<training::updaters::StandardUpdater>(
        train_iter, optimizer, training::updaters::StandardUpdaterOptions{.device = device});
    training::Trainer trainer{updater, {args.epoch, "epoch"}, args.out};
    auto evaluator = mn.evaluator(
        std::make_shared<extensions::Evaluator>(test_iter, model, extensions::EvaluatorOptions{.device = device}));
    // Evaluator, DumpGraph, snapshot, LogReport, PlotReport, PrintReport and ProgressBar as
    // Chainer's train_mnist.py (examples/common/trainer_setup.h); only the evaluator off rank 0.
    examples::add_classifier_extensions(trainer, evaluator, args, args.epoch, mn.is_root());

    if (!args.resume.empty()) rensa::serializers::load_npz(args.resume, trainer);
    trainer.run();

    // The global accuracy on every rank: all ranks exit with the same status.
    return examples::check_test_accuracy("mnist", *evaluator, args.min_accuracy, mn.is_root());
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    CLI::App app{"rensa example: an MLP on (Fashion-)MNIST (Chainer's train_mnist.py)"};
    add_options(app, args);
    CLI11_PARSE(app, argc, argv);
    return examples::run_reporting_errors("mnist", [&] { return run(args); });
}
