#include <catch2/catch.hpp>

#include "autograd/modes.h"
#include "core/ops/reduction.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "tests/testing/testing.h"
#include "tests/training/training_testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/log_report.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::FakeUpdater;
using rensa::testing::TempDir;
using training::Trainer;
using training::extensions::Evaluator;
using training::extensions::LogReport;
using training::extensions::LogReportOptions;

// Reports the mean of its first input as "loss" and the batch size through its child
// "l1", and records the modes it ran under.
class Probe : public links::Chain {
public:
    Probe() { l1 = add_link("l1", std::make_shared<links::Linear>(1, 1)); }
    using Chain::forward;
    Variable forward(const std::vector<Variable>& xs) override {
        ++calls;
        train_seen.push_back(config().train);
        backprop_seen.push_back(is_backprop_enabled());
        report({{"loss", ops::mean(xs.at(0).array())}}, this);
        report({{"batch", rensa::testing::scalar(static_cast<double>(xs.at(0).shape()[0]))}}, l1.get());
        return xs.at(0);
    }
    std::shared_ptr<links::Linear> l1;
    int calls = 0;
    std::vector<bool> train_seen, backprop_seen;
};

// x = 0, 1, 2, 3, 4 (one feature), t = 0, 1, 0, 1, 0.
training::DatasetPtr five_examples() {
    return std::make_shared<training::datasets::TupleDataset>(std::vector<Array>{
        rensa::testing::make_array({0, 1, 2, 3, 4}, Shape{5, 1}, Dtype::kFloat32),
        rensa::testing::make_array({0, 1, 0, 1, 0}, Shape{5}, Dtype::kInt32),
    });
}

training::IteratorPtr test_iterator(int64_t batch_size = 2, bool repeat = false) {
    return std::make_shared<training::iterators::SerialIterator>(
        five_examples(), batch_size, training::iterators::SerialIteratorOptions{.repeat = repeat, .shuffle = false});
}

double value(const Observation& observation, const std::string& key) {
    REQUIRE(observation.count(key) == 1);
    const Array& array = observation.at(key);
    CHECK(array.ndim() == 0);
    CHECK(array.dtype() == Dtype::kFloat64);
    return array.item<double>();
}

}  // namespace

TEST_CASE("Evaluator: means over batches of unequal size weigh each batch the same", "[training][reporting]") {
    auto probe = std::make_shared<Probe>();
    Evaluator evaluator{test_iterator(2), probe};
    const Observation result = evaluator.evaluate();
    // Batches {0, 1}, {2, 3}, {4}: Chainer's DictSummary averages the batch means
    // (0.5 + 2.5 + 4) / 3, not the examples (2.0).
    CHECK(value(result, "main/loss") == Approx(7.0 / 3.0));
    CHECK(value(result, "main/l1/batch") == Approx(5.0 / 3.0));  // the child reports under main/l1
    CHECK(result.size() == 2);
    CHECK(probe->calls == 3);
}

TEST_CASE("Evaluator: runs with train off and no graph and restores both", "[training][reporting]") {
    auto probe = std::make_shared<Probe>();
    Evaluator evaluator{test_iterator(2), probe};
    (void)evaluator.evaluate();
    CHECK(probe->train_seen == std::vector<bool>{false, false, false});
    CHECK(probe->backprop_seen == std::vector<bool>{false, false, false});
    CHECK(config().train);
    CHECK(is_backprop_enabled());

    // A real model: the loss it keeps has no creator, so no graph was recorded.
    auto classifier = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(1, 2));
    Evaluator on_classifier{test_iterator(5), classifier};
    const Observation result = on_classifier.evaluate();
    CHECK(value(result, "main/loss") > 0.0);
    CHECK(value(result, "main/accuracy") >= 0.0);
    REQUIRE(classifier->loss.defined());
    CHECK(classifier->loss.creator() == nullptr);
}

TEST_CASE("Evaluator: resets the iterator before each pass", "[training][reporting]") {
    auto probe = std::make_shared<Probe>();
    auto iterator = test_iterator(2);
    Evaluator evaluator{iterator, probe};
    const double first = value(evaluator.evaluate(), "main/loss");
    CHECK_FALSE(iterator->next().has_value());  // the pass consumed it
    const double second = value(evaluator.evaluate(), "main/loss");
    CHECK(second == first);
    iterator->reset();
    (void)iterator->next();  // half-way through
    CHECK(value(evaluator.evaluate(), "main/loss") == first);
    CHECK(probe->calls == 9);
}

TEST_CASE("Evaluator: eval_func and converter and eval_hook options are used", "[training][reporting]") {
    auto probe = std::make_shared<Probe>();
    int converted = 0, hooked = 0;
    std::vector<int64_t> sizes;
    Evaluator evaluator{test_iterator(3),
                        probe,
                        {.converter =
                             [&converted](const std::vector<training::Example>& batch, std::optional<Device> device) {
                                 ++converted;
                                 return training::concat_examples(batch, device);
                             },
                         .eval_func =
                             [&sizes](const std::vector<Variable>& inputs) {
                                 sizes.push_back(inputs.at(0).shape()[0]);
                                 CHECK(inputs.size() == 2);
                                 CHECK_FALSE(inputs[0].requires_grad());
                                 report({{"custom", ops::mean(inputs[1].array())}});
                             },
                         .eval_hook =
                             [&hooked, &converted](Evaluator& self) {
                                 CHECK(self.default_name() == "validation");
                                 CHECK(converted == 0);  // before the first batch
                                 CHECK_FALSE(config().train);
                                 ++hooked;
                             }}};
    const Observation result = evaluator.evaluate();
    CHECK(hooked == 1);
    CHECK(converted == 2);
    CHECK(sizes == std::vector<int64_t>{3, 2});
    CHECK(probe->calls == 0);                                           // eval_func replaced the target
    CHECK(value(result, "custom") == Approx((1.0 / 3.0 + 0.5) / 2.0));  // batches {0, 1, 0}, {1, 0}
}

TEST_CASE("Evaluator: argument errors name what is wrong", "[training][reporting]") {
    auto probe = std::make_shared<Probe>();
    CHECK_THROWS_AS(Evaluator(test_iterator(2, /*repeat=*/true), probe), ValueError);
    CHECK_THROWS_AS(Evaluator({{"other", test_iterator()}}, {{"main", probe}}), ValueError);
    CHECK_THROWS_AS(Evaluator({{"main", test_iterator()}}, {{"other", probe}}), ValueError);
    CHECK_THROWS_AS(Evaluator(test_iterator(), nullptr), ValueError);
    Evaluator evaluator{test_iterator(), probe};
    CHECK(&evaluator.get_target() == probe.get());
    CHECK_THROWS_AS(evaluator.get_iterator("test"), KeyError);
    CHECK_THROWS_AS(evaluator.get_target("test"), KeyError);
    CHECK(evaluator.default_name() == "validation");
    CHECK(evaluator.priority() == training::kPriorityWriter);
    try {
        (void)Evaluator(test_iterator(2, true), probe);
    } catch (const ValueError& error) {
        CHECK_THAT(error.what(), Catch::Contains("'main'") && Catch::Contains("repeat"));
    }
}

TEST_CASE("Evaluator: a trainer extension reports validation keys before LogReport reads them",
          "[training][reporting]") {
    TempDir dir{"evaluator_trainer"};
    Trainer trainer{std::make_shared<FakeUpdater>(2, nullptr), {2, "epoch"}, dir.str()};
    auto log_report = std::make_shared<LogReport>(LogReportOptions{.filename = std::nullopt});
    trainer.extend(log_report);  // added first, still runs after the evaluator (priority)
    trainer.extend(std::make_shared<Evaluator>(test_iterator(2), std::make_shared<Probe>()));
    auto renamed = std::make_shared<Evaluator>(test_iterator(5), std::make_shared<Probe>());
    trainer.extend(renamed, {.name = "test"});  // Trainer.extend names it: keys "test/..."
    trainer.run();
    const auto& log = log_report->log();
    REQUIRE(log.size() == 2);
    CHECK(log[1].at("validation/main/loss") == Approx(7.0 / 3.0));
    CHECK(log[1].at("validation/main/l1/batch") == Approx(5.0 / 3.0));
    CHECK(log[1].at("test/main/loss") == Approx(2.0));  // one batch of all five
}
