// L::Classifier: the predictor child, loss and accuracy against F::, reporting into an
// observation under the observer's name, label_key, custom functions, gradients, NPZ keys
// and copies.

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "core/reporter.h"
#include "functions/evaluation.h"
#include "functions/loss.h"
#include "functions/math.h"
#include "links/connection/linear.h"
#include "links/initializers.h"
#include "links/model/classifier.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// A predictor of two inputs: x0 + x1.
class AddInputs : public L::Cloneable<AddInputs> {
public:
    using L::Link::forward;
    Variable forward(const std::vector<Variable>& xs) override { return F::add(xs[0], xs[1]); }
};

Array labels(const std::vector<int32_t>& values) {
    return Array::from_vector(values, Shape{static_cast<int64_t>(values.size())});
}

std::shared_ptr<L::Linear> linear(int64_t in, int64_t out) {
    return std::make_shared<L::Linear>(in, out, false, std::make_shared<initializers::Normal>(1.0, Dtype::kFloat64),
                                       std::make_shared<initializers::Uniform>(1.0, Dtype::kFloat64));
}

}  // namespace

TEST_CASE("Classifier holds its predictor as a child", "[links][model]") {
    auto predictor = std::make_shared<L::Linear>(3, 2);
    L::Classifier clf(predictor);
    CHECK(clf.predictor == predictor);
    CHECK(&clf.child("predictor") == predictor.get());
    const auto params = clf.namedparams();
    REQUIRE(params.size() == 2);
    CHECK(params[0].first == "/predictor/W");
    CHECK(params[1].first == "/predictor/b");
    CHECK(clf.label_key == -1);
    CHECK(clf.compute_accuracy);
    CHECK_FALSE(clf.y.defined());
    CHECK_THROWS_AS(L::Classifier(nullptr), ValueError);
}

TEST_CASE("Classifier computes and reports loss and accuracy", "[links][model]") {
    seed(41);
    L::Classifier clf(linear(3, 4));
    const Variable x(ops::uniform({5, 3}, -1, 1, Dtype::kFloat64));
    const Variable t(labels({0, 3, 1, 1, 2}));
    Reporter reporter;
    reporter.add_observer("main", &clf);
    Observation observation;
    Variable loss;
    {
        ReporterScope scope(reporter, observation);
        loss = clf(x, t);
    }
    const Variable y = (*clf.predictor)(x);
    CHECK(loss == clf.loss);
    check_allclose(clf.y.array(), y.array());
    CHECK(loss.item<double>() == Approx(F::softmax_cross_entropy(y, t).item<double>()).epsilon(1e-12));
    REQUIRE(clf.accuracy.defined());
    CHECK(clf.accuracy.item<double>() == F::accuracy(y, t).item<double>());
    REQUIRE(observation.size() == 2);
    REQUIRE(observation.count("main/loss") == 1);
    REQUIRE(observation.count("main/accuracy") == 1);
    CHECK(observation.at("main/loss").item<double>() == loss.item<double>());
    CHECK(observation.at("main/accuracy").item<double>() == clf.accuracy.item<double>());
}

TEST_CASE("Classifier without accuracy reports only the loss", "[links][model]") {
    L::Classifier clf(linear(3, 4));
    clf.compute_accuracy = false;
    Reporter reporter;
    reporter.add_observer("validation/main", &clf);
    Observation observation;
    ReporterScope scope(reporter, observation);
    (void)clf(Variable(ops::uniform({2, 3}, -1, 1, Dtype::kFloat64)), Variable(labels({1, 2})));
    CHECK_FALSE(clf.accuracy.defined());
    REQUIRE(observation.size() == 1);
    CHECK(observation.count("validation/main/loss") == 1);
}

TEST_CASE("Classifier reports nothing without a reporter and needs a registered observer", "[links][model]") {
    L::Classifier clf(linear(3, 4));
    const Variable x(ops::uniform({2, 3}, -1, 1, Dtype::kFloat64));
    const Variable t(labels({1, 2}));
    CHECK_NOTHROW(clf(x, t));
    Reporter reporter;
    Observation observation;
    ReporterScope scope(reporter, observation);
    CHECK_THROWS_AS(clf(x, t), KeyError);
}

TEST_CASE("Classifier takes custom functions and label keys", "[links][model]") {
    const L::LossFunction mse = [](const Variable& y, const Variable& t) { return F::mean_squared_error(y, t); };
    const L::AccuracyFunction zero = [](const Variable& y, const Variable&) {
        return Variable(ops::zeros({}, y.dtype()), false);
    };
    L::Classifier clf(std::make_shared<AddInputs>(), mse, zero, 0);
    const Array a = f64({1, 2}, {2}), b = f64({3, 5}, {2}), t = f64({4, 4}, {2});
    // Label first: the predictor gets (a, b), y = (4, 7), mse against (4, 4) = 4.5.
    const Variable loss = clf(Variable(t), Variable(a), Variable(b));
    CHECK(loss.item<double>() == Approx(4.5));
    CHECK(to_doubles(clf.y.array()) == std::vector<double>{4, 7});
    CHECK(clf.accuracy.item<double>() == 0.0);
    clf.label_key = 1;  // the label in the middle
    CHECK(clf(Variable(a), Variable(t), Variable(b)).item<double>() == Approx(4.5));
    clf.label_key = -3;
    CHECK(clf(Variable(t), Variable(a), Variable(b)).item<double>() == Approx(4.5));
}

TEST_CASE("Classifier reports bad label keys and inputs", "[links][model]") {
    L::Classifier clf(linear(3, 4), nullptr, nullptr, 2);
    const Variable x(ops::uniform({2, 3}, -1, 1, Dtype::kFloat64));
    const Variable t(labels({1, 2}));
    CHECK_THROWS_AS(clf(x, t), ValueError);
    CHECK_THROWS_WITH(clf(x, t), Catch::Contains("label key 2 is out of bounds"));
    clf.label_key = -3;
    CHECK_THROWS_AS(clf(x, t), ValueError);
    clf.label_key = -1;
    CHECK_THROWS_AS(clf(x), ValueError);
    CHECK_THROWS_AS(clf(x, Variable(labels({1, 7}))), ValueError);  // label out of range for 4 classes
}

TEST_CASE("Classifier gradients reach the predictor", "[links][model]") {
    seed(43);
    L::Classifier clf(linear(3, 4));
    auto& predictor = static_cast<L::Linear&>(*clf.predictor);
    const auto f = [&clf](const std::vector<Variable>& xs) { return clf(xs[0], xs[1]); };
    check_link_backward(f, {ops::uniform({5, 3}, -1, 1, Dtype::kFloat64), labels({0, 3, 1, 1, 2})},
                        {predictor.W, predictor.b}, Array::from_vector(std::vector<double>{1.0}, Shape{}));
}

TEST_CASE("Classifier saves its predictor under predictor and copies it", "[links][model]") {
    L::Classifier clf(linear(3, 2));
    L::Classifier target(linear(3, 2));
    CHECK(npz_round_trip(clf, target) == std::vector<std::string>{"predictor/W", "predictor/b"});
    check_allclose(static_cast<L::Linear&>(*target.predictor).W.array(),
                   static_cast<L::Linear&>(*clf.predictor).W.array());
    clf.compute_accuracy = false;
    const auto copy = std::dynamic_pointer_cast<L::Classifier>(clf.copy());
    REQUIRE(copy);
    REQUIRE(copy->predictor);
    CHECK(copy->predictor != clf.predictor);
    CHECK(&copy->child("predictor") == copy->predictor.get());
    CHECK_FALSE(copy->compute_accuracy);
    const auto& original_W = static_cast<L::Linear&>(*clf.predictor).W;
    CHECK(static_cast<L::Linear&>(*copy->predictor).W.array().storage() == original_W.array().storage());
    const Variable x(ops::uniform({2, 3}, -1, 1, Dtype::kFloat64));
    const Variable t(labels({1, 0}));
    CHECK(copy->forward({x, t}).item<double>() == Approx(clf(x, t).item<double>()));
}

TEST_CASE("Classifier on CUDA reports the same loss as the CPU", "[links][model][cuda]") {
    if (!has_cuda()) return;
    L::Classifier clf(linear(3, 4));
    const Array x = ops::uniform({5, 3}, -1, 1, Dtype::kFloat64);
    const Array t = labels({0, 3, 1, 1, 2});
    const double expected = clf(Variable(x), Variable(t)).item<double>();
    clf.to_device(Device::cuda(0));
    CHECK(clf.predictor->device() == Device::cuda(0));
    Reporter reporter;
    reporter.add_observer("main", &clf);
    Observation observation;
    ReporterScope scope(reporter, observation);
    const Variable loss = clf(Variable(x.to_device(Device::cuda(0))), Variable(t.to_device(Device::cuda(0))));
    CHECK(loss.device() == Device::cuda(0));
    CHECK(loss.item<double>() == Approx(expected).epsilon(1e-10));
    REQUIRE(observation.count("main/accuracy") == 1);
    CHECK(observation.at("main/accuracy").device() == Device::cuda(0));
}
