#include <catch2/catch.hpp>

#include <memory>
#include <numeric>

#include "distributed/multi_node_evaluator.h"
#include "distributed/scatter_dataset.h"
#include "serializers/npz.h"
#include "tests/distributed/training/mn_training_testing.h"
#include "tests/training/training_testing.h"
#include "training/converter.h"
#include "training/datasets/sub_dataset.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::allgather_values;
using rensa::testing::mn_comm;

struct Counters {
    int64_t epoch_fires = 0;
    std::vector<int64_t> fire_iterations;
};

// A trainer over `iterator` for 2 epochs with, once per epoch, a multi-node evaluator (a
// collective: ranks that disagree on the epoch end would wait for each other forever) and a
// counter.
void train_two_epochs(const std::shared_ptr<training::Iterator>& iterator, training::updaters::LossFunction loss,
                      const std::shared_ptr<links::Classifier>& model, const std::string& out, Counters& counters) {
    auto optimizer = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.1});
    optimizer->setup(model);
    auto updater = std::make_shared<training::updaters::StandardUpdater>(
        iterator, optimizer, training::updaters::StandardUpdaterOptions{.loss_func = std::move(loss)});
    training::Trainer trainer{updater, {2, "epoch"}, out};
    const auto validation =
        distributed::scatter_dataset(testing::tiny_dataset(13), mn_comm(), {.force_equal_length = false});
    auto val_iter = std::make_shared<training::iterators::SerialIterator>(
        validation, 4, training::iterators::SerialIteratorOptions{.repeat = false, .shuffle = false});
    trainer.extend(distributed::create_multi_node_evaluator(
        std::make_shared<training::extensions::Evaluator>(val_iter, model), mn_comm()));
    trainer.extend(training::make_extension(
        [&counters](training::Trainer& t) {
            ++counters.epoch_fires;
            counters.fire_iterations.push_back(t.updater().iteration());
        },
        {.name = "count", .trigger = {1, "epoch"}}));
    trainer.run();
}

bool all_equal(const std::vector<int64_t>& values) {
    return std::all_of(values.begin(), values.end(), [&](int64_t v) { return v == values[0]; });
}

}  // namespace

TEST_CASE("mn training: equal-length shards end epochs together", "[distributed][training]") {
    const auto& comm = mn_comm();
    const testing::SharedTempDir dir{"equal_length"};
    const auto shard = distributed::scatter_dataset(testing::tiny_dataset(101), comm,
                                                    {.shuffle = true, .seed = 1, .force_equal_length = true});
    const int64_t per_rank = (101 + comm->size() - 1) / comm->size();
    CHECK(shard->size() == per_rank);
    rensa::seed(0);
    const auto model = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(3, 2));
    auto iterator = std::make_shared<training::iterators::SerialIterator>(shard, 10);
    Counters counters;
    train_two_epochs(iterator, nullptr, model, dir.str(), counters);
    // A repeating iterator's batches span epochs: epoch k ends at iteration ceil(k * len / 10),
    // the same on every rank since the lengths are.
    CHECK(counters.fire_iterations == std::vector<int64_t>{(per_rank + 9) / 10, (2 * per_rank + 9) / 10});
    const std::vector<int64_t> fires = allgather_values(counters.fire_iterations);
    CHECK(fires.size() == 2 * static_cast<size_t>(comm->size()));
    for (size_t i = 0; i < fires.size(); ++i) CHECK(fires[i] == counters.fire_iterations[i % 2]);
}

TEST_CASE("mn training: join iterator ends epochs together on uneven shards", "[distributed][training]") {
    const auto& comm = mn_comm();
    const testing::SharedTempDir dir{"join"};
    const auto shard = distributed::scatter_dataset(testing::tiny_dataset(101), comm, {.force_equal_length = false});
    rensa::seed(0);
    const auto model = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(3, 2));
    auto iterator = std::make_shared<distributed::JoinIterator>(shard, 10, comm);
    const int64_t first_len = 101 / comm->size() + (101 % comm->size() > 0 ? 1 : 0);
    CHECK(iterator->iterations_per_epoch() == (first_len + 9) / 10);
    int64_t real_examples = 0, padding_steps = 0, reported_on_padding = 0;
    auto counting = [&](const std::vector<Variable>& inputs) {
        if (iterator->is_padding()) {
            ++padding_steps;
        } else {
            real_examples += inputs[0].shape()[0];
        }
        return model->forward(inputs);
    };
    Counters counters;
    {
        // Reports of padding steps must not reach the trainer's observation.
        auto optimizer = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.1});
        optimizer->setup(model);
        auto updater = std::make_shared<training::updaters::StandardUpdater>(
            iterator, optimizer,
            training::updaters::StandardUpdaterOptions{.loss_func = distributed::join_loss_func(iterator, counting)});
        training::Trainer trainer{updater, {2, "epoch"}, dir.str()};
        trainer.extend(training::make_extension(
            [&](training::Trainer& t) {
                if (iterator->is_padding() && t.observation.count("main/loss") > 0) ++reported_on_padding;
            },
            {.name = "padding_reports"}));
        trainer.extend(training::make_extension(
            [&counters](training::Trainer& t) { counters.fire_iterations.push_back(t.updater().iteration()); },
            {.name = "count", .trigger = {1, "epoch"}}));
        trainer.extend(distributed::create_multi_node_evaluator(
            std::make_shared<training::extensions::Evaluator>(
                std::make_shared<training::iterators::SerialIterator>(
                    shard, 7, training::iterators::SerialIteratorOptions{.repeat = false}),
                model),
            comm));
        trainer.run();
    }
    const int64_t per_epoch = iterator->iterations_per_epoch();
    CHECK(counters.fire_iterations == std::vector<int64_t>{per_epoch, 2 * per_epoch});
    CHECK(all_equal(allgather_values({counters.fire_iterations.back()})));
    // Every example exactly once per epoch; the rest were padding steps.
    CHECK(real_examples == 2 * shard->size());
    const std::vector<int64_t> totals = allgather_values({real_examples});
    CHECK(std::accumulate(totals.begin(), totals.end(), int64_t{0}) == 2 * 101);
    CHECK(padding_steps == 2 * (per_epoch - (shard->size() + 9) / 10));
    CHECK(reported_on_padding == 0);
}

TEST_CASE("mn training: join padding batches weigh zero", "[distributed][training]") {
    const auto& comm = mn_comm();
    // Rank r has 5 + 6r examples: with batches of 4 the last rank has the most batches.
    const auto shard =
        std::make_shared<training::datasets::SubDataset>(testing::tiny_dataset(30), 0, 5 + 6 * comm->rank());
    rensa::seed(0);
    const auto model = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(3, 2));
    auto iterator = std::make_shared<distributed::JoinIterator>(
        shard, 4, comm, distributed::JoinIteratorOptions{.repeat = false, .shuffle = false});
    const auto loss_func = distributed::join_loss_func(iterator, model);
    int64_t batches = 0, paddings = 0;
    bool zero_iff_padding = true;
    while (auto batch = iterator->next()) {
        ++batches;
        const training::Example arrays = training::concat_examples(*batch);
        std::vector<Variable> inputs;
        for (const Array& a : arrays.values) inputs.emplace_back(a, false);
        model->cleargrads();
        Variable loss = loss_func(inputs);
        loss.backward();
        const auto grad = model->predictor->params()[0].grad().to_vector<double>();
        const bool zero = std::all_of(grad.begin(), grad.end(), [](double g) { return g == 0.0; });
        zero_iff_padding = zero_iff_padding && zero == iterator->is_padding();
        paddings += iterator->is_padding() ? 1 : 0;
    }
    CHECK(zero_iff_padding);
    CHECK(batches == (5 + 6 * (comm->size() - 1) + 3) / 4);
    CHECK(paddings == batches - (5 + 6 * comm->rank() + 3) / 4);
    CHECK(iterator->epoch() == 1);
    CHECK(!iterator->next().has_value());  // no repeat: one epoch
    iterator->reset();
    CHECK(iterator->epoch() == 0);
    CHECK(iterator->next().has_value());
}

TEST_CASE("mn training: join iterator rejects an empty shard that needs padding", "[distributed][training]") {
    const auto& comm = mn_comm();
    const auto shard = distributed::scatter_dataset(testing::tiny_dataset(2), comm, {.force_equal_length = false});
    if (comm->size() > 2) {
        CHECK_THROWS_AS(distributed::JoinIterator(shard, 1, comm), ValueError);
    } else {
        CHECK_NOTHROW(distributed::JoinIterator(shard, 1, comm));
    }
}

TEST_CASE("mn training: join iterator state survives a snapshot", "[distributed][training]") {
    const auto& comm = mn_comm();
    const auto shard = distributed::scatter_dataset(testing::tiny_dataset(23), comm, {.force_equal_length = false});
    const testing::TempDir dir{"join_state_" + std::to_string(comm->rank())};
    distributed::JoinIterator first{shard, 3, comm};
    for (int i = 0; i < 5; ++i) (void)first.next();
    serializers::save_npz(dir.file("it.npz"), first);
    distributed::JoinIterator second{shard, 3, comm};
    serializers::load_npz(dir.file("it.npz"), second);
    CHECK(second.epoch() == first.epoch());
    CHECK(second.epoch_detail() == first.epoch_detail());
    bool same = true;
    for (int i = 0; i < 2 * first.iterations_per_epoch(); ++i) {
        const auto a = first.next(), b = second.next();
        same = same && a.has_value() && b.has_value() && a->size() == b->size() &&
               first.is_padding() == second.is_padding();
        for (size_t j = 0; same && j < a->size(); ++j) {
            same = (*a)[j][0].to_vector<double>() == (*b)[j][0].to_vector<double>();
        }
    }
    CHECK(same);
    // Another batch size means another epoch length: rejected, nothing changes.
    distributed::JoinIterator other{shard, 100, comm};
    if (other.iterations_per_epoch() != first.iterations_per_epoch()) {
        CHECK_THROWS_AS(serializers::load_npz(dir.file("it.npz"), other), ValueError);
        CHECK(other.epoch_detail() == 0.0);
    }
}
