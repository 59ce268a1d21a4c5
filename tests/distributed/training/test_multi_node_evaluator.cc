#include <catch2/catch.hpp>

#include <cmath>

#include "core/ops/creation.h"
#include "core/random.h"
#include "distributed/multi_node_evaluator.h"
#include "distributed/scatter_dataset.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "tests/distributed/training/mn_training_testing.h"
#include "tests/testing/testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updater.h"

namespace {

using namespace rensa;
using rensa::testing::mn_comm;
using training::extensions::Evaluator;

// 101 examples of 4 features and 3 classes, not linearly separable by the model below.
training::DatasetPtr eval_dataset(int64_t n = 101) {
    std::vector<double> xs, ts;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < 4; ++j) xs.push_back(std::sin(0.7 * double(i) + 1.3 * double(j)));
        ts.push_back(double((i * 5) % 3));
    }
    return std::make_shared<training::datasets::TupleDataset>(std::vector<Array>{
        testing::make_array(xs, Shape{n, 4}, Dtype::kFloat32), testing::make_array(ts, Shape{n}, Dtype::kInt32)});
}

// The same model on every rank (seeded).
std::shared_ptr<links::Classifier> eval_model() {
    rensa::seed(42);
    return std::make_shared<links::Classifier>(std::make_shared<links::Linear>(4, 3));
}

std::shared_ptr<Evaluator> evaluator(const training::DatasetPtr& dataset, int64_t batch_size,
                                     const std::shared_ptr<links::Link>& model,
                                     training::extensions::EvaluatorOptions options = {}) {
    auto iterator = std::make_shared<training::iterators::SerialIterator>(
        dataset, batch_size, training::iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});
    return std::make_shared<Evaluator>(iterator, model, std::move(options));
}

double value(const Observation& observation, const std::string& key) {
    const auto found = observation.find(key);
    return found == observation.end() ? std::nan("") : found->second.item<double>();
}

// An updater that does nothing (the Trainer needs one to register extensions).
class IdleUpdater : public training::Updater {
public:
    optimizers::Optimizer& get_optimizer(const std::string&) override { RENSA_THROW(KeyError, "none"); }
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> get_all_optimizers() override { return {}; }
    training::Iterator& get_iterator(const std::string&) override { RENSA_THROW(KeyError, "none"); }
    void update() override {}
    int64_t iteration() const override { return 0; }
    int64_t epoch() const override { return 0; }
    double epoch_detail() const override { return 0; }
    std::optional<double> previous_epoch_detail() const override { return std::nullopt; }
    bool is_new_epoch() const override { return false; }
    void serialize(const serializers::Serializer&) override {}
};

}  // namespace

TEST_CASE("mn training: multi-node evaluator is exact on uneven shards", "[distributed][training]") {
    const auto& comm = mn_comm();
    const auto model = eval_model();
    const training::DatasetPtr full = eval_dataset();
    // Single-process references: one batch of everything, and one example per batch.
    const Observation whole = evaluator(full, 101, model)->evaluate();
    const Observation single = evaluator(full, 1, model)->evaluate();
    for (const bool root_only : {false, true}) {
        const training::DatasetPtr shard = distributed::scatter_dataset(root_only && comm->rank() != 0 ? nullptr : full,
                                                                        comm, {.force_equal_length = false});
        const auto multi = distributed::create_multi_node_evaluator(evaluator(shard, 7, model), comm);
        const Observation result = multi->evaluate();
        CHECK(result.size() == 2);
        for (const std::string key : {"main/loss", "main/accuracy"}) {
            CHECK(result.at(key).dtype() == Dtype::kFloat64);
            CHECK(result.at(key).ndim() == 0);
            CHECK(value(result, key) == Approx(value(whole, key)).epsilon(1e-5));
            CHECK(value(result, key) == Approx(value(single, key)).epsilon(1e-5));
        }
        // Not the mean of per-rank means (ChainerMN) unless that happens to agree.
        const std::vector<Array> losses = comm->allgather(result.at("main/loss"));
        for (const Array& loss : losses) CHECK(loss.item<double>() == value(result, "main/loss"));
    }
}

TEST_CASE("mn training: multi-node evaluator agrees on keys and empty shards", "[distributed][training]") {
    const auto& comm = mn_comm();
    // 2 examples over up to 3 ranks: the last rank of 3 has none.
    const training::DatasetPtr shard =
        distributed::scatter_dataset(eval_dataset(2), comm, {.force_equal_length = false});
    training::extensions::EvaluatorOptions options;
    const int rank = comm->rank();
    options.eval_func = [rank](const std::vector<Variable>& inputs) {
        const double first = inputs[0].array().to_vector<double>()[0];
        Observation values{{"first", ops::full(Shape{}, first, Dtype::kFloat64)}};
        if (rank == 0) values.emplace("only_rank0", ops::full(Shape{}, 5.0, Dtype::kFloat32));
        values.emplace("vector", ops::full(Shape{2}, 1.0, Dtype::kFloat32));  // not a scalar: skipped
        report(values);
    };
    const auto multi = distributed::create_multi_node_evaluator(evaluator(shard, 1, eval_model(), options), comm);
    const Observation result = multi->evaluate();
    CHECK(result.size() == 2);
    // Mean of the first feature of examples 0 and 1 (over whichever ranks hold them).
    const double expected = (std::sin(0.0) + std::sin(0.7)) / 2.0;
    CHECK(value(result, "first") == Approx(expected).epsilon(1e-6));
    CHECK(value(result, "only_rank0") == 5.0);
}

TEST_CASE("mn training: multi-node evaluator keeps the actual's name and trigger", "[distributed][training]") {
    const auto& comm = mn_comm();
    const auto actual = evaluator(eval_dataset(5), 2, eval_model());
    const auto multi = distributed::create_multi_node_evaluator(actual, comm);
    CHECK(multi->default_name() == "validation");
    CHECK(multi->priority() == training::kPriorityWriter);
    const auto length = multi->default_trigger().get()->get_training_length();
    REQUIRE(length.has_value());
    CHECK(*length == std::pair<int64_t, std::string>{1, "epoch"});
    actual->set_name("val");
    CHECK(multi->default_name() == "val");
    training::Trainer trainer{std::make_shared<IdleUpdater>()};
    trainer.extend(multi);
    CHECK(&trainer.get_extension("val") == multi.get());
    CHECK_THROWS_AS(distributed::create_multi_node_evaluator(nullptr, comm), ValueError);
    CHECK_THROWS_AS(distributed::create_multi_node_evaluator(actual, nullptr), ValueError);
}

namespace {

// A custom evaluate(): each rank reports its rank as "r".
class RankEvaluator : public Evaluator {
public:
    using Evaluator::Evaluator;
    Observation evaluate() override { return {{"r", ops::full(Shape{}, double(mn_comm()->rank()), Dtype::kFloat64)}}; }
};

}  // namespace

TEST_CASE("mn training: multi-node evaluator averages a custom evaluate", "[distributed][training]") {
    const auto& comm = mn_comm();
    auto iterator = std::make_shared<training::iterators::SerialIterator>(
        eval_dataset(3), 1, training::iterators::SerialIteratorOptions{.repeat = false});
    const auto multi =
        distributed::create_multi_node_evaluator(std::make_shared<RankEvaluator>(iterator, eval_model()), comm);
    CHECK(value(multi->evaluate(), "r") == Approx(double(comm->size() - 1) / 2.0));
}
