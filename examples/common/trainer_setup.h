#pragma once
// What the examples share around their Chainer-style scripts: the command-line options of
// the image classifiers (mnist, convnet), their trainer extensions (Evaluator, DumpGraph,
// snapshot, LogReport, PlotReport, PrintReport, ProgressBar), the final test accuracy
// check, and main()'s error handling. Header-only: each example is one main.cc.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "training/extensions/dump_graph.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/log_report.h"
#include "training/extensions/plot_report.h"
#include "training/extensions/print_report.h"
#include "training/extensions/progress_bar.h"
#include "training/extensions/snapshot.h"
#include "training/trainer.h"

namespace examples {

// The options the image classifiers share, with Chainer's names and defaults; each
// example derives its Args from it and adds epoch, unit and its optimizer's options.
struct ClassifierArgs {
    int64_t batchsize = 100;
    int64_t frequency = -1;
    std::string out = "result";
    std::string resume;
    bool autoload = false;
    std::string dataset = "fashion-mnist";
    bool noplot = false;
    uint64_t seed = 0;
    double min_accuracy = 0.0;
};

// -b,--batchsize and -e,--epoch.
inline void add_batch_options(CLI::App& app, int64_t& batchsize, int64_t& epoch) {
    app.add_option("-b,--batchsize", batchsize, "Number of images in each mini-batch")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("-e,--epoch", epoch, "Number of sweeps over the dataset to train")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
}

// -f,--frequency, -o,--out, -r,--resume and --autoload.
inline void add_snapshot_options(CLI::App& app, ClassifierArgs& args) {
    app.add_option("-f,--frequency", args.frequency, "Frequency of taking a snapshot (epochs; -1: at the end)")
        ->capture_default_str();
    app.add_option("-o,--out", args.out, "Directory to output the result")->capture_default_str();
    app.add_option("-r,--resume", args.resume, "Resume the training from this snapshot");
    app.add_flag("--autoload", args.autoload, "Automatically load the latest snapshot in --out");
}

// --dataset, --noplot, --seed and --min-accuracy.
inline void add_dataset_options(CLI::App& app, ClassifierArgs& args) {
    app.add_option("--dataset", args.dataset, "Dataset to train on")
        ->check(CLI::IsMember({"fashion-mnist", "mnist"}))
        ->capture_default_str();
    app.add_flag("--noplot", args.noplot, "Disable PlotReport extension");
    app.add_option("--seed", args.seed, "Random seed (weights and shuffling)")->capture_default_str();
    app.add_option("--min-accuracy", args.min_accuracy, "Exit with status 1 when the final test accuracy is lower")
        ->capture_default_str();
}

// Chainer's train_mnist.py extensions: Evaluator, snapshot, LogReport, PlotReport,
// PrintReport, ProgressBar. Chainer also passes call_before_training=true to log the
// untrained model as epoch 0; we leave that extra pass over the test set out. With
// report = false (the non-root ranks of a multi-process run) only the evaluator is added.
inline void add_classifier_extensions(rensa::training::Trainer& trainer,
                                      const std::shared_ptr<rensa::training::extensions::Evaluator>& evaluator,
                                      const ClassifierArgs& args, int64_t epoch, bool report = true) {
    namespace extensions = rensa::training::extensions;
    trainer.extend(evaluator);
    if (!report) return;
    // The computational graph of the loss as Graphviz DOT (result/cg.dot).
    trainer.extend(std::make_shared<extensions::DumpGraph>("main/loss"));
    const int64_t frequency = args.frequency == -1 ? epoch : std::max<int64_t>(1, args.frequency);
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

// Prints the "main/accuracy" of one more pass of the evaluator over the test set (when
// `print`); the exit status: 1 when it is not finite or below min_accuracy, else 0.
[[nodiscard]] inline int check_test_accuracy(const char* program, rensa::training::extensions::Evaluator& evaluator,
                                             double min_accuracy, bool print = true) {
    const rensa::Observation result = evaluator.evaluate();
    double accuracy = std::nan("");
    for (const char* key : {"main/accuracy", "validation/main/accuracy"}) {
        if (const auto it = result.find(key); it != result.end()) {
            accuracy = it->second.item<double>();
            break;
        }
    }
    if (print) std::cout << "test accuracy: " << std::fixed << std::setprecision(4) << accuracy << "\n";
    if (!std::isfinite(accuracy) || accuracy < min_accuracy) {
        if (print)
            std::cerr << program << ": test accuracy " << accuracy << " is below --min-accuracy " << min_accuracy
                      << "\n";
        return 1;
    }
    return 0;
}

// Runs an example's run(): its exit status, or 2 with the message when it throws.
template <typename Run>
[[nodiscard]] int run_reporting_errors(const char* program, Run&& run) {
    try {
        return run();
    } catch (const std::exception& error) {
        std::cerr << program << ": training failed: " << error.what() << "\n";
        return 2;
    }
}

}  // namespace examples
