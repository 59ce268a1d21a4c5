// A small convolutional network on Fashion-MNIST (or MNIST) images of shape (1, 28, 28):
// conv 5x5x32 - BatchNormalization - ReLU - max-pool 2, conv 5x5x64 - BatchNormalization -
// ReLU - max-pool 2, linear 1024 - ReLU, linear 10, trained with MomentumSGD. The same
// trainer extensions as the mnist example (Evaluator, LogReport, PrintReport, ProgressBar,
// snapshot, PlotReport, --resume). Prints the final test accuracy and exits non-zero when
// training fails (or the accuracy is below --min-accuracy).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "core/device.h"
#include "core/error.h"
#include "core/random.h"
#include "examples/common/device.h"
#include "examples/common/trainer_setup.h"
#include "functions/activation.h"
#include "functions/pooling.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "links/normalization/batch_normalization.h"
#include "optimizers/momentum_sgd.h"
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

// Network definition. The convolutions have no bias: the BatchNormalization after each
// adds its own shift (beta). Evaluator switches config.train off, so the normalizations
// use their running statistics at test time.
class ConvNet : public L::Cloneable<ConvNet, L::Chain> {
public:
    std::shared_ptr<L::Convolution2D> conv1, conv2;
    std::shared_ptr<L::BatchNormalization> bn1, bn2;
    std::shared_ptr<L::Linear> fc3, fc4;

    ConvNet(int64_t n_units, int64_t n_out) {
        register_link("conv1", &ConvNet::conv1, std::make_shared<L::Convolution2D>(1, 32, 5, kNoBias));
        register_link("bn1", &ConvNet::bn1, std::make_shared<L::BatchNormalization>(32));
        register_link("conv2", &ConvNet::conv2, std::make_shared<L::Convolution2D>(32, 64, 5, kNoBias));
        register_link("bn2", &ConvNet::bn2, std::make_shared<L::BatchNormalization>(64));
        register_link("fc3", &ConvNet::fc3, std::make_shared<L::Linear>(std::nullopt, n_units));
        register_link("fc4", &ConvNet::fc4, std::make_shared<L::Linear>(std::nullopt, n_out));
    }

    using L::Chain::forward;
    // x: (batch, 1, 28, 28) -> (batch, 32, 12, 12) -> (batch, 64, 4, 4) -> (batch, n_out).
    Variable forward(const Variable& x) override {
        const Variable h1 = F::max_pooling_2d(F::relu((*bn1)((*conv1)(x))), 2);
        const Variable h2 = F::max_pooling_2d(F::relu((*bn2)((*conv2)(h1))), 2);
        return (*fc4)(F::relu((*fc3)(h2)));
    }

private:
    static inline const L::Convolution2DOptions kNoBias{.nobias = true};
};

// The command line, with Chainer's option names and defaults.
// (examples::ClassifierArgs holds those mnist and convnet share: batchsize, frequency, out,
// resume, autoload, dataset, noplot, seed, min_accuracy.)
struct Args : examples::ClassifierArgs {
    int64_t epoch = 5;
    double lr = 0.01;
    double momentum = 0.9;
    int64_t unit = 1024;
    std::string device = "native";
};

void add_options(CLI::App& app, Args& args) {
    examples::add_batch_options(app, args.batchsize, args.epoch);
    app.add_option("--lr", args.lr, "Learning rate of MomentumSGD")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--momentum", args.momentum, "Momentum of MomentumSGD")->capture_default_str();
    examples::add_snapshot_options(app, args);
    app.add_option("-u,--unit", args.unit, "Number of units of the hidden fully-connected layer")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    examples::add_dataset_options(app, args);
    app.add_option("-d,--device", args.device, "Device to train on: native or cuda:N")->capture_default_str();
}

// Images as float32 (1, 28, 28) in [0, 1] (ndim=3), labels int32.
std::pair<training::DatasetPtr, training::DatasetPtr> load_dataset(const std::string& name) {
    const training::datasets::MnistOptions options{.ndim = 3};
    return name == "mnist" ? training::datasets::get_mnist(options) : training::datasets::get_fashion_mnist(options);
}

int run(const Args& args) {
    const rensa::Device device = examples::select_device(args.device);
    rensa::seed(args.seed);
    std::cout << "# unit: " << args.unit << "\n# minibatch-size: " << args.batchsize << "\n# epoch: " << args.epoch
              << "\n# lr: " << args.lr << ", momentum: " << args.momentum << "\n# dataset: " << args.dataset << "\n\n";

    // A Classifier computes the softmax cross entropy loss and the accuracy and reports them.
    auto model = std::make_shared<L::Classifier>(std::make_shared<ConvNet>(args.unit, 10));
    auto optimizer = std::make_shared<rensa::optimizers::MomentumSGD>(
        rensa::optimizers::MomentumSGDOptions{.lr = args.lr, .momentum = args.momentum});
    model->to_device(device);  // before setup, as Chainer's to_device then setup
    optimizer->setup(model);

    const auto [train, test] = load_dataset(args.dataset);
    auto train_iter = std::make_shared<training::iterators::SerialIterator>(train, args.batchsize);
    auto test_iter = std::make_shared<training::iterators::SerialIterator>(
        test, args.batchsize, training::iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});

    auto updater = std::make_shared<training::updaters::StandardUpdater>(
        train_iter, optimizer, training::updaters::StandardUpdaterOptions{.device = device});
    training::Trainer trainer{updater, {args.epoch, "epoch"}, args.out};
    auto evaluator =
        std::make_shared<extensions::Evaluator>(test_iter, model, extensions::EvaluatorOptions{.device = device});
    // Evaluator, DumpGraph, snapshot, LogReport, PlotReport, PrintReport and ProgressBar as
    // Chainer's train_mnist.py (examples/common/trainer_setup.h).
    examples::add_classifier_extensions(trainer, evaluator, args, args.epoch);

    if (!args.resume.empty()) rensa::serializers::load_npz(args.resume, trainer);
    trainer.run();

    return examples::check_test_accuracy("convnet", *evaluator, args.min_accuracy);
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    CLI::App app{"rensa example: a small CNN with BatchNormalization on (Fashion-)MNIST"};
    add_options(app, args);
    CLI11_PARSE(app, argc, argv);
    return examples::run_reporting_errors("convnet", [&] { return run(args); });
}
