// The tutorial of the docs (docs/tutorial.rst), in C++; examples/tutorial/tutorial.py is the
// same program in Python, step for step.
//
// A two-layer perceptron learns to tell three Gaussian blobs apart. The program trains it for
// 2 x N iterations straight; then trains a fresh model for N iterations, saves a snapshot (an
// NPZ file), builds everything anew, resumes from the snapshot and trains to 2 x N. It exits
// non-zero unless the resumed run ends where the straight one does (same iteration, same
// parameters bit for bit), the test accuracy reaches --min-accuracy, and the saved model
// loads back unchanged.
//
// Run: ./build/examples/tutorial --out result/tutorial
#include <CLI/CLI.hpp>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/operators.h"
#include "core/ops/random.h"
#include "core/ops/reduction.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/evaluation.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/momentum_sgd.h"
#include "serializers/npz.h"
#include "training/converter.h"
#include "training/datasets/tuple_dataset.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/log_report.h"
#include "training/extensions/snapshot.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace {

namespace F = rensa::functions;
namespace L = rensa::links;
namespace ops = rensa::ops;
namespace training = rensa::training;
namespace extensions = rensa::training::extensions;
using rensa::Array;
using rensa::Dtype;
using rensa::Variable;

// [data]
// n points in 4 dimensions around three centres; labels 0, 1, 2 (int32).
std::shared_ptr<training::datasets::TupleDataset> make_blobs(int64_t n, uint64_t seed) {
    rensa::seed(seed);
    const Array t = ops::randint(0, 3, {n}, Dtype::kInt32);
    const Array one_hot = (t.reshape({n, 1}) == ops::arange(4, Dtype::kInt32)).astype(Dtype::kFloat32);
    const Array x = one_hot * 2.0 + ops::normal({n, 4}, 0.0, 0.7);
    return std::make_shared<training::datasets::TupleDataset>(std::vector<Array>{x, t});
}
// [data end]

// [model]
class MLP : public L::Cloneable<MLP, L::Chain> {
public:
    std::shared_ptr<L::Linear> l1, l2;

    MLP(int64_t n_units, int64_t n_out) {
        register_link("l1", &MLP::l1, std::make_shared<L::Linear>(std::nullopt, n_units));  // input size inferred
        register_link("l2", &MLP::l2, std::make_shared<L::Linear>(n_units, n_out));
    }

    using L::Chain::forward;
    Variable forward(const Variable& x) override { return (*l2)(F::relu((*l1)(x))); }
};
// [model end]

// [trainer]
struct Run {
    std::shared_ptr<L::Classifier> model;
    std::unique_ptr<training::Trainer> trainer;
};

// A fresh model, optimizer and trainer that trains until iteration `stop`.
Run make_trainer(const training::DatasetPtr& train, const training::DatasetPtr& test, int64_t stop,
                 const std::string& out, uint64_t seed = 0) {
    rensa::seed(seed);  // the initial weights and the shuffling
    auto model = std::make_shared<L::Classifier>(std::make_shared<MLP>(32, 3));  // softmax cross entropy
    auto optimizer =
        std::make_shared<rensa::optimizers::MomentumSGD>(rensa::optimizers::MomentumSGDOptions{.lr = 0.05});
    optimizer->setup(model);
    auto train_iter = std::make_shared<training::iterators::SerialIterator>(train, 32);
    auto test_iter = std::make_shared<training::iterators::SerialIterator>(
        test, 100, training::iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});
    auto updater = std::make_shared<training::updaters::StandardUpdater>(train_iter, optimizer);
    auto trainer = std::make_unique<training::Trainer>(updater, training::TriggerArg{stop, "iteration"}, out);
    trainer->extend(std::make_shared<extensions::Evaluator>(test_iter, model), {.trigger = {50, "iteration"}});
    trainer->extend(
        std::make_shared<extensions::LogReport>(extensions::LogReportOptions{.trigger = {50, "iteration"}}));
    trainer->extend(extensions::snapshot({.filename = "snapshot_iter_{.updater.iteration}"}),
                    {.trigger = {stop, "iteration"}});
    return {model, std::move(trainer)};
}
// [trainer end]

// [evaluate]
// The accuracy of `model` on the whole test set, without a graph, in test mode.
double accuracy(L::Classifier& model, const training::Dataset& test) {
    std::vector<int64_t> all(static_cast<size_t>(test.size()));
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    const training::Example batch = training::concat_examples(test.get_examples(all));
    rensa::NoBackpropMode no_graph;
    rensa::ConfigScope test_mode{&rensa::Config::train, false};
    const Variable y = (*model.predictor)(Variable{batch[0]});
    return F::accuracy(y, Variable{batch[1]}).item<double>();
}
// [evaluate end]

std::map<std::string, Array> params(const L::Link& model) {
    std::map<std::string, Array> out;
    for (const auto& [name, p] : model.namedparams()) out.emplace(name, p.array().copy());
    return out;
}

bool same(const std::map<std::string, Array>& a, const std::map<std::string, Array>& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [name, x] : a) {
        const auto it = b.find(name);
        if (it == b.end() || x.shape() != it->second.shape() || !ops::all(x == it->second).item<bool>()) return false;
    }
    return true;
}

int run(const std::string& out, int64_t n, double min_accuracy) {
    const auto train = make_blobs(1000, 1);
    const auto test = make_blobs(300, 2);

    // [train]
    Run straight = make_trainer(train, test, 2 * n, out + "/straight");
    straight.trainer->run();
    const double acc = accuracy(*straight.model, *test);
    std::cout << "straight: iteration " << straight.trainer->updater().iteration() << ", test accuracy " << acc << "\n";
    // [train end]

    // [save]
    Run first = make_trainer(train, test, n, out + "/first");
    first.trainer->run();  // its snapshot extension writes first/snapshot_iter_<n> at iteration n
    const std::string snapshot = out + "/first/snapshot_iter_" + std::to_string(n);
    // [save end]

    // [resume]
    // Another seed: only the snapshot can make this run end where the straight one does.
    Run resumed = make_trainer(train, test, 2 * n, out + "/resumed", 1);
    rensa::serializers::load_npz(snapshot, *resumed.trainer);  // model, optimizer, iterator, updater, extensions
    const int64_t start = resumed.trainer->updater().iteration();
    std::cout << "resumed from " << snapshot << " at iteration " << start << "\n";
    resumed.trainer->run();
    rensa::serializers::save_npz(out + "/model.npz", *resumed.model);  // the model alone
    // [resume end]

    std::vector<std::string> failures;
    if (start != n) failures.push_back("the snapshot resumed at iteration " + std::to_string(start));
    const int64_t iteration = resumed.trainer->updater().iteration();
    if (iteration != 2 * n) failures.push_back("resumed run ended at iteration " + std::to_string(iteration));
    const bool equal = same(params(*straight.model), params(*resumed.model));
    if (!equal) failures.emplace_back("resumed parameters differ from the straight run");
    if (acc < min_accuracy) failures.push_back("test accuracy " + std::to_string(acc) + " below the minimum");
    L::Classifier reloaded{std::make_shared<MLP>(32, 3)};
    rensa::serializers::load_npz(out + "/model.npz", reloaded);
    if (!same(params(reloaded), params(*resumed.model))) failures.emplace_back("model.npz does not load back");
    std::cout << "resumed: iteration " << iteration << ", test accuracy " << accuracy(*resumed.model, *test)
              << ", parameters " << (equal ? "equal to" : "differ from") << " the straight run's\n";
    for (const auto& f : failures) std::cerr << "tutorial: " << f << "\n";
    return failures.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string out = "result/tutorial";
    int64_t iterations = 150;
    double min_accuracy = 0.9;
    CLI::App app{"rensa tutorial: train, evaluate, save and resume a classifier (docs/tutorial.rst)"};
    app.add_option("--out", out, "Output folder")->capture_default_str();
    app.add_option("--iterations", iterations, "N: the run is 2 x N iterations")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--min-accuracy", min_accuracy, "Fail below this test accuracy")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    try {
        return run(out, iterations, min_accuracy);
    } catch (const std::exception& e) {
        std::cerr << "tutorial: " << e.what() << "\n";
        return 1;
    }
}
