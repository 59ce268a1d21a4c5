#include <catch2/catch.hpp>
#include <set>

#include "core/error.h"
#include "serializers/npz.h"
#include "tests/training/trainer/trainer_testing.h"
#include "training/converter.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using rensa::testing::tiny_setup;

double full_loss(links::Classifier& model, int64_t n) {
    const Example all = concat_examples(rensa::testing::tiny_dataset(n)->get_examples([n] {
        std::vector<int64_t> idx;
        for (int64_t i = 0; i < n; ++i) idx.push_back(i);
        return idx;
    }()));
    return model(Variable(all.values[0], false), Variable(all.values[1], false)).array().item<double>();
}

}  // namespace

TEST_CASE("StandardUpdater counts updates and epochs and lowers the loss", "[training][trainer]") {
    auto s = tiny_setup(12, 4);
    const double before = full_loss(*s.model, 12);
    for (int i = 0; i < 30; ++i) s.updater->update();
    CHECK(s.updater->iteration() == 30);
    CHECK(s.updater->epoch() == 10);
    CHECK(s.updater->epoch_detail() == Approx(10.0));
    CHECK(s.optimizer->t == 30);
    CHECK(s.optimizer->epoch == 10);  // auto_new_epoch
    CHECK(full_loss(*s.model, 12) < before * 0.8);
}

TEST_CASE("StandardUpdater epoch counters with a batch size that does not divide the data", "[training][trainer]") {
    auto s = tiny_setup(10, 4);
    s.updater->update();
    CHECK(s.updater->epoch_detail() == Approx(0.4));
    CHECK_FALSE(s.updater->is_new_epoch());
    s.updater->update();
    s.updater->update();
    CHECK(s.updater->iteration() == 3);
    CHECK(s.updater->epoch() == 1);
    CHECK(s.updater->epoch_detail() == Approx(1.2));
    CHECK(s.updater->previous_epoch_detail().value() == Approx(0.8));
    CHECK(s.updater->is_new_epoch());
    CHECK(s.optimizer->epoch == 1);
}

TEST_CASE("StandardUpdater auto_new_epoch=false leaves the optimizer epoch", "[training][trainer]") {
    auto s = tiny_setup(8, 4, false, 0, {.auto_new_epoch = false});
    for (int i = 0; i < 6; ++i) s.updater->update();
    CHECK(s.updater->epoch() == 3);
    CHECK(s.optimizer->epoch == 0);
}

TEST_CASE("StandardUpdater uses the given loss_func converter and device", "[training][trainer]") {
    int converter_calls = 0, loss_calls = 0;
    std::vector<Shape> seen;
    updaters::StandardUpdaterOptions options;
    options.converter = [&](const std::vector<Example>& batch, std::optional<Device> device) {
        ++converter_calls;
        CHECK(device.has_value());
        return concat_examples(batch, device);
    };
    options.device = Device{DeviceKind::kNative, 0};
    auto s = tiny_setup(10, 4, false, 0, options);
    // The loss_func is installed after setup so that it can capture the model.
    auto model = s.model;
    auto updater = std::make_shared<updaters::StandardUpdater>(
        s.iterator, s.optimizer,
        updaters::StandardUpdaterOptions{.converter = options.converter,
                                         .device = options.device,
                                         .loss_func = [&, model](const std::vector<Variable>& xs) {
                                             ++loss_calls;
                                             for (const auto& x : xs) {
                                                 seen.push_back(x.array().shape());
                                                 CHECK_FALSE(x.requires_grad());
                                             }
                                             return (*model)(xs[0], xs[1]);
                                         }});
    updater->update();
    updater->update();
    CHECK(converter_calls == 2);
    CHECK(loss_calls == 2);
    REQUIRE(seen.size() == 4);
    CHECK(seen[0] == Shape{4, 3});
    CHECK(seen[1] == Shape{4});
    CHECK(s.optimizer->t == 2);
}

TEST_CASE("StandardUpdater lookups and construction errors", "[training][trainer]") {
    auto s = tiny_setup(8, 4);
    CHECK(&s.updater->get_optimizer("main") == s.optimizer.get());
    CHECK(&s.updater->get_iterator("main") == s.iterator.get());
    CHECK_THROWS_AS(s.updater->get_optimizer("gen"), KeyError);
    CHECK_THROWS_WITH(s.updater->get_iterator("test"), Catch::Contains("'main'"));
    CHECK(s.updater->get_all_optimizers().size() == 1);
    CHECK_THROWS_AS(updaters::StandardUpdater({{"train", s.iterator}}, {{"main", s.optimizer}}), ValueError);
    CHECK_THROWS_AS(updaters::StandardUpdater({{"main", s.iterator}}, {}), ValueError);
    // Optimizers of other names (Chainer's GAN updaters): only the default step needs "main".
    updaters::StandardUpdater gan({{"main", s.iterator}}, {{"dis", s.optimizer}});
    CHECK(&gan.get_optimizer("dis") == s.optimizer.get());
    CHECK_THROWS_WITH(gan.update(), Catch::Contains("StandardUpdater.update_core") && Catch::Contains("'dis'"));
}

TEST_CASE("StandardUpdater raises when a non-repeating iterator is exhausted", "[training][trainer]") {
    auto s = tiny_setup(8, 4);
    auto it = std::make_shared<iterators::SerialIterator>(rensa::testing::tiny_dataset(8), 4,
                                                          iterators::SerialIteratorOptions{.repeat = false});
    updaters::StandardUpdater updater{it, s.optimizer};
    updater.update();
    updater.update();
    CHECK_THROWS_AS(updater.update(), ValueError);
    CHECK(updater.iteration() == 2);
}

TEST_CASE("StandardUpdater serialize writes Chainer's keys", "[training][trainer]") {
    auto s = tiny_setup(8, 4);
    s.updater->update();
    auto backend = std::make_shared<rensa::testing::KeyRecorder>();
    s.updater->serialize(serializers::Serializer{backend});
    const auto& keys = backend->keys;
    CHECK(keys.count("iteration") == 1);
    CHECK(keys.count("iterator:main/current_position") == 1);
    CHECK(keys.count("iterator:main/epoch") == 1);
    CHECK(keys.count("optimizer:main/t") == 1);
    CHECK(keys.count("optimizer:main/epoch") == 1);
    CHECK(keys.count("model:main/predictor/W") == 1);
    CHECK(keys.count("model:main/predictor/b") == 1);
}

TEST_CASE("StandardUpdater save_npz and load_npz round trip", "[training][trainer]") {
    rensa::testing::TempDir dir{"updater_round_trip"};
    auto a = tiny_setup(10, 4, true, 1);
    for (int i = 0; i < 4; ++i) a.updater->update();
    serializers::save_npz(dir.file("u.npz"), *a.updater);
    auto b = tiny_setup(10, 4, true, 2);
    serializers::load_npz(dir.file("u.npz"), *b.updater);
    CHECK(b.updater->iteration() == 4);
    CHECK(b.updater->epoch_detail() == Approx(a.updater->epoch_detail()));
    CHECK(b.optimizer->t == 4);
    rensa::testing::check_allclose(b.model->predictor->param("W").array(), a.model->predictor->param("W").array());
    a.updater->update();
    b.updater->update();
    CHECK(a.model->predictor->param("W").array().to_vector<float>() ==
          b.model->predictor->param("W").array().to_vector<float>());
}
