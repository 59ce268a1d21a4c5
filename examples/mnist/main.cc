// Chainer's examples/mnist/train_mnist.py in C++: a multi-layer perceptron
// (784-1000-1000-10, ReLU) trained with Adam on Fashion-MNIST (or MNIST), with the
// usual trainer extensions: Evaluator, DumpGraph, LogReport, PrintReport, ProgressBar, snapshot,
// PlotReport, and --resume from a snapshot. Prints the final test accuracy and exits
// non-zero when training fails (or the accuracy is below --min-accuracy).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "core/random.h"
#include "functions/activation.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"
#include "serializers/npz.h"
#include "training/datasets/mnist.h"
#include "training/extensions/dump_graph.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/log_report.h"
#include "training/extensions/plot_report.h"
#include "training/extensions/print_report.h"
#include "training/extensions/progress_bar.h"
#include "training/extensions/snapshot.h"
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
struct Args {
    int64_t batchsize = 100;
    int64_t epoch = 20;
    int64_t frequency = -1;
    std::string out = "result";
    std::string resume;
    bool autoload = false;
    int64_t unit = 1000;
    std::string dataset = "fashion-mnist";
    bool noplot = false;
    uint64_t seed = 0;
    double min_accuracy = 0.0;
};

void add_options(CLI::App& app, Args& args) {
    app.add_option("-b,--batchsize", args.batchsize, "Number of images in each mini-batch")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("-e,--epoch", args.epoch, "Number of sweeps over the dataset to train")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("-f,--frequency", args.frequency, "Frequency of taking a snapshot (epochs; -1: at the end)")
        ->capture_default_str();
    app.add_option("-o,--out", args.out, "Directory to output the result")->capture_default_str();
    app.add_option("-r,--resume", args.resume, "Resume the training from this snapshot");
    app.add_flag("--autoload", args.autoload, "Automatically load the latest snapshot in --out");
    app.add_option("-u,--unit", args.unit, "Number of units")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--dataset", args.dataset, "Dataset to train on")
        ->check(CLI::IsMember({"fashion-mnist", "mnist"}))
        ->capture_default_str();
    app.add_flag("--noplot", args.noplot, "Disable PlotReport extension");
    app.add_option("--seed", args.seed, "Random seed (weights and shuffling)")->capture_default_str();
    app.add_option("--min-accuracy", args.min_accuracy, "Exit with status 1 when the final test accuracy is lower")
        ->capture_default_str();
}

// Images as flat float32 vectors of 784 values in [0, 1], labels int32.
std::pair<training::DatasetPtr, training::DatasetPtr> load_dataset(const std::string& name) {
    return name == "mnist" ? training::datasets::get_mnist() : training::datasets::get_fashion_mnist();
}

// Chainer's example: Evaluator, snapshot, LogReport, PlotReport, PrintReport, ProgressBar.
// Chainer also passes call_before_training=true to log the untrained model as epoch 0;
// we leave that extra pass over the test set out.
void add_extensions(training::Trainer& trainer, const std::shared_ptr<extensions::Evaluator>& evaluator,
                    const Args& args) {
    trainer.extend(evaluator);
    // The computational graph of the loss as Graphviz DOT (result/cg.dot).
    trainer.extend(std::make_shared<extensions::DumpGraph>("main/loss"));
    const int64_t frequency = args.frequency == -1 ? args.epoch : std::max<int64_t>(1, args.frequency);
    trainer.extend(extensions::snapshot({.n_retains = 1, .autoload = args.autoload}),
                   {.trigger = {frequency, "epoch"}});
    trainer.extend(std::make_shared<extensions::LogReport>());
    if (!args.noplot) {
        trainer.extend(std::make_shared<extensions::PlotReport>(
            std::vector<std::string>{"main/loss", "validation/main/loss"},
            extensions::PlotReportOptions{.x_key = "epoch", .filename = "loss.svg"}));
        trainer.extend(std::make_shared<extensions::PlotReport>(
            std::vector<std::string>{"main/accuracy", "validation/main/accuracy"},
            extensions::PlotReportOptions{.x_key = "epoch", .filename = "accuracy.svg"}));
    }
    trainer.extend(std::make_shared<extensions::PrintReport>(std::vector<std::string>{
        "epoch", "main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy", "elapsed_time"}));
    trainer.extend(std::make_shared<extensions::ProgressBar>());
}

// The "main/accuracy" of one more pass of the evaluator over the test set.
double test_accuracy(extensions::Evaluator& evaluator) {
    const rensa::Observation result = evaluator.evaluate();
    for (const char* key : {"main/accuracy", "validation/main/accuracy"}) {
        if (const auto it = result.find(key); it != result.end()) return it->second.item<double>();
    }
    return std::nan("");
}

int run(const Args& args) {
    rensa::seed(args.seed);
    std::cout << "# unit: " << args.unit << "\n# minibatch-size: " << args.batchsize << "\n# epoch: " << args.epoch
              << "\n# dataset: " << args.dataset << "\n\n";

    // A Classifier computes the softmax cross entropy loss and the accuracy and reports them.
    auto model = std::make_shared<L::Classifier>(std::make_shared<MLP>(args.unit, 10));
    auto optimizer = std::make_shared<rensa::optimizers::Adam>();
    optimizer->setup(model);

    const auto [train, test] = load_dataset(args.dataset);
    auto train_iter = std::make_shared<training::iterators::SerialIterator>(train, args.batchsize);
    auto test_iter = std::make_shared<training::iterators::SerialIterator>(
        test, args.batchsize, training::iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});

    auto updater = std::make_shared<training::updaters::StandardUpdater>(train_iter, optimizer);
    training::Trainer trainer{updater, {args.epoch, "epoch"}, args.out};
    auto evaluator = std::make_shared<extensions::Evaluator>(test_iter, model);
    add_extensions(trainer, evaluator, args);

    if (!args.resume.empty()) rensa::serializers::load_npz(args.resume, trainer);
    trainer.run();

    const double accuracy = test_accuracy(*evaluator);
    std::cout << "test accuracy: " << std::fixed << std::setprecision(4) << accuracy << "\n";
    if (!std::isfinite(accuracy) || accuracy < args.min_accuracy) {
        std::cerr << "mnist: test accuracy " << accuracy << " is below --min-accuracy " << args.min_accuracy << "\n";
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    CLI::App app{"rensa example: an MLP on (Fashion-)MNIST (Chainer's train_mnist.py)"};
    add_options(app, args);
    CLI11_PARSE(app, argc, argv);
    try {
        return run(args);
    } catch (const std::exception& error) {
        std::cerr << "mnist: training failed: " << error.what() << "\n";
        return 2;
    }
}
