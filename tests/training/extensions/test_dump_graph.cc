// DumpGraph: the DOT of the loss graph after the first iteration, once.

#include <catch2/catch.hpp>
#include <filesystem>

#include "functions/math.h"
#include "serializers/npz.h"
#include "tests/training/extensions/extensions_testing.h"
#include "training/extensions/dump_graph.h"

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::extensions;
using rensa::testing::FakeUpdater;
using rensa::testing::read_file;
using rensa::testing::scalar;
using rensa::testing::TempDir;
using rensa::testing::tiny_setup;
using rensa::testing::ext::tiny_sgd;

namespace {
using Optimizers = std::map<std::string, std::shared_ptr<optimizers::Optimizer>>;

// Records the iterations at which `path` exists and then removes it.
class FileWatcher : public Extension {
public:
    explicit FileWatcher(std::string path) : path_{std::move(path)} {}
    void operator()(Trainer& trainer) override {
        if (std::filesystem::exists(path_)) seen.push_back(trainer.updater().iteration());
        std::filesystem::remove(path_);
    }
    std::string default_name() const override { return "watcher"; }
    int priority() const override { return 0; }  // after DumpGraph
    std::vector<int64_t> seen;

private:
    std::string path_;
};
}  // namespace

TEST_CASE("DumpGraph: writes the DOT of the loss graph once", "[training][extensions]") {
    TempDir dir{"dump_graph"};
    auto setup = tiny_setup(16, 4, /*shuffle=*/true);
    Trainer trainer{setup.updater, {3, "iteration"}, dir.str()};
    auto dump = std::make_shared<DumpGraph>("main/loss");
    trainer.extend(dump);
    auto watcher = std::make_shared<FileWatcher>(dir.file("cg.dot"));
    trainer.extend(watcher);
    trainer.run();
    CHECK(watcher->seen == std::vector<int64_t>{1});  // written after iteration 1 only
    CHECK(dump->flag_called());
}

TEST_CASE("DumpGraph: the DOT names the functions of the loss", "[training][extensions]") {
    TempDir dir{"dump_graph_dot"};
    auto setup = tiny_setup(16, 4, /*shuffle=*/true);
    Trainer trainer{setup.updater, {2, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<DumpGraph>("main/loss", "graph.dot"));
    trainer.run();
    const std::string dot = read_file(dir.file("graph.dot"));
    INFO(dot);
    CHECK(dot.rfind("digraph", 0) == 0);
    CHECK(dot.find("SoftmaxCrossEntropy") != std::string::npos);
    CHECK(dot.find("Linear") != std::string::npos);
    CHECK(dot.find("(4, 3), float32") != std::string::npos);  // the input batch
    CHECK(dot.find("->") != std::string::npos);
}

TEST_CASE("DumpGraph: finds the loss of a Classifier without its hook", "[training][extensions]") {
    TempDir dir{"dump_graph_classifier"};
    auto setup = tiny_setup(16, 4, /*shuffle=*/true);
    Trainer trainer{setup.updater, {}, dir.str()};
    const Variable x{rensa::testing::make_array({1, 2, 3, 4, 5, 6}, Shape{2, 3}, Dtype::kFloat32)};
    const Variable t{rensa::testing::make_array({0, 1}, Shape{2}, Dtype::kInt32)};
    const Variable loss = setup.model->forward(std::vector<Variable>{x, t});
    trainer.observation["main/loss"] = loss.array();
    DumpGraph dump{"main/loss"};
    dump(trainer);  // no initialize(): the root comes from the Classifier's `loss`
    CHECK(read_file(dir.file("cg.dot")).find("SoftmaxCrossEntropy") != std::string::npos);
}

TEST_CASE("DumpGraph: rejects a root without a graph", "[training][extensions]") {
    TempDir dir{"dump_graph_errors"};
    auto updater = std::make_shared<FakeUpdater>(Optimizers{{"main", tiny_sgd()}}, 2, [](int64_t) {
        return Observation{{"main/loss", scalar(1.0)}};
    });
    Trainer trainer{updater, {2, "iteration"}, dir.str()};
    DumpGraph missing{"main/other"};
    updater->update();
    trainer.observation = {{"main/loss", scalar(1.0)}};
    CHECK_THROWS_AS(missing(trainer), KeyError);
    DumpGraph plain{"main/loss"};
    CHECK_THROWS_AS(plain(trainer), ValueError);
    CHECK_FALSE(std::filesystem::exists(dir.file("cg.dot")));
}

TEST_CASE("DumpGraph: does not dump again after a resume", "[training][extensions]") {
    TempDir dir{"dump_graph_resume"};
    DumpGraph first{"main/loss"};
    TriggerPtr trigger = first.default_trigger().get();
    auto setup = tiny_setup(16, 4, /*shuffle=*/true);
    Trainer trainer{setup.updater, {}, dir.str()};
    CHECK((*trigger)(trainer));
    CHECK_FALSE((*trigger)(trainer));
    serializers::save_npz(dir.file("dump.npz"), first);
    DumpGraph resumed{"main/loss"};
    serializers::load_npz(dir.file("dump.npz"), resumed);
    CHECK(resumed.flag_called());
    CHECK_FALSE((*resumed.default_trigger().get())(trainer));
}

TEST_CASE("DumpGraph: finds the root of any loss function through its hook", "[training][extensions]") {
    TempDir dir{"dump_graph_hook"};
    auto setup = tiny_setup(16, 4, /*shuffle=*/true);
    auto kept = std::make_shared<Variable>();
    // A loss function that is not a Classifier: mean of the squared logits, reported as "loss".
    auto predictor = setup.model->predictor;
    auto loss_func = [predictor, kept](const std::vector<Variable>& inputs) {
        const Variable y = predictor->forward(inputs[0]);
        *kept = functions::sum(y * y);
        report({{"loss", kept->array()}});
        return *kept;
    };
    auto iterator = std::make_shared<iterators::SerialIterator>(rensa::testing::tiny_dataset(8), 4);
    auto updater = std::make_shared<updaters::StandardUpdater>(
        iterator, setup.optimizer, updaters::StandardUpdaterOptions{.loss_func = loss_func});
    Trainer trainer{updater, {1, "iteration"}, dir.str()};
    trainer.extend(std::make_shared<DumpGraph>("loss"));
    trainer.run();
    const std::string dot = read_file(dir.file("cg.dot"));
    INFO(dot);
    CHECK(dot.find("Sum") != std::string::npos);
    CHECK(dot.find("SoftmaxCrossEntropy") == std::string::npos);
}
