#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/ops/creation.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/sgd.h"
#include "tests/training/training_testing.h"
#include "training/extensions/fail_on_non_number.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::FakeUpdater;
using rensa::testing::TempDir;
using training::Trainer;
using training::extensions::FailOnNonNumber;

struct Setup {
    std::shared_ptr<links::Linear> linear = std::make_shared<links::Linear>(3, 2);
    std::shared_ptr<links::Classifier> model = std::make_shared<links::Classifier>(linear);
    std::shared_ptr<links::Linear> other = std::make_shared<links::Linear>(2, 2);
    std::shared_ptr<optimizers::SGD> main_optimizer = std::make_shared<optimizers::SGD>();
    std::shared_ptr<optimizers::SGD> second_optimizer = std::make_shared<optimizers::SGD>();
    TempDir dir{"fail_on_non_number"};
    std::unique_ptr<Trainer> trainer;

    Setup() {
        main_optimizer->setup(model);
        second_optimizer->setup(other);
        auto updater = std::make_shared<FakeUpdater>(1, nullptr,
                                                     std::map<std::string, std::shared_ptr<optimizers::Optimizer>>{
                                                         {"main", main_optimizer}, {"second", second_optimizer}});
        trainer = std::make_unique<Trainer>(updater, training::TriggerArg{1, "iteration"}, dir.str());
    }
};

std::string message_of(FailOnNonNumber& extension, Trainer& trainer) {
    try {
        extension(trainer);
    } catch (const Error& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("FailOnNonNumber: finite parameters pass and NaN or Inf stops naming the parameter",
          "[training][reporting]") {
    Setup setup;
    FailOnNonNumber extension;
    CHECK(extension.default_name() == "FailOnNonNumber");
    CHECK_NOTHROW(extension(*setup.trainer));

    setup.linear->b.array().fill(std::numeric_limits<double>::quiet_NaN());
    const std::string nan_message = message_of(extension, *setup.trainer);
    CHECK_THAT(nan_message,
               Catch::Contains("'main'") && Catch::Contains("main/predictor/b") && Catch::Contains("R.I.P."));
    setup.linear->b.array().fill(0.0);
    CHECK_NOTHROW(extension(*setup.trainer));

    setup.other->W.array().fill(-std::numeric_limits<double>::infinity());
    CHECK_THAT(message_of(extension, *setup.trainer), Catch::Contains("second/W"));
    CHECK_THROWS_AS(extension(*setup.trainer), Error);  // Chainer's RuntimeError
}

TEST_CASE("FailOnNonNumber: gradients are checked unless check_grad is off", "[training][reporting]") {
    Setup setup;
    setup.linear->W.set_grad(ops::full(Shape{2, 3}, std::numeric_limits<double>::infinity(), Dtype::kFloat32));
    FailOnNonNumber checking;
    CHECK_THAT(message_of(checking, *setup.trainer),
               Catch::Contains("gradient") && Catch::Contains("main/predictor/W"));
    FailOnNonNumber not_checking{{.check_grad = false}};
    CHECK_NOTHROW(not_checking(*setup.trainer));
    setup.linear->W.cleargrad();
    CHECK_NOTHROW(checking(*setup.trainer));
}

TEST_CASE("FailOnNonNumber: stops a trainer whose update diverges", "[training][reporting]") {
    Setup setup;
    auto linear = setup.linear;
    auto updater = std::make_shared<FakeUpdater>(
        10,
        [linear](int64_t iteration) {
            if (iteration == 3) linear->W.array().fill(std::numeric_limits<double>::quiet_NaN());
            return Observation{};
        },
        std::map<std::string, std::shared_ptr<optimizers::Optimizer>>{{"main", setup.main_optimizer}});
    Trainer trainer{updater, {10, "iteration"}, setup.dir.str()};
    trainer.extend(std::make_shared<FailOnNonNumber>());
    CHECK_THROWS_AS(trainer.run(), Error);
    CHECK(updater->iteration() == 3);
}
