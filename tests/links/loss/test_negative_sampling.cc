// L::NegativeSampling and its WalkerAlias sampler: the alias table reproduces the
// distribution exactly, draws follow it, the loss matches F::negative_sampling with the
// same draws, gradients and NPZ keys.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/ops/random.h"
#include "core/random.h"
#include "functions/loss.h"
#include "links/loss/negative_sampling.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// The probability of each id under the table: slot j (chosen with 1/n) gives its left id
// with probability min(threshold_j, 1) and its right id otherwise.
std::vector<double> table_probabilities(const L::WalkerAlias& table) {
    const size_t n = table.threshold().size();
    std::vector<double> p(n, 0.0);
    for (size_t j = 0; j < n; ++j) {
        const double left = std::min(table.threshold()[j], 1.0);
        p[static_cast<size_t>(table.values()[2 * j])] += left / static_cast<double>(n);
        p[static_cast<size_t>(table.values()[2 * j + 1])] += (1.0 - left) / static_cast<double>(n);
    }
    return p;
}

Array labels(const std::vector<int32_t>& values) {
    return Array::from_vector(values, Shape{static_cast<int64_t>(values.size())});
}

}  // namespace

TEST_CASE("WalkerAlias tables reproduce the distribution", "[links][loss]") {
    const std::vector<std::vector<double>> cases = {{1, 2, 3, 4}, {5},           {1, 0, 3}, {0.1, 10, 0.1, 0.1, 3, 7},
                                                    {2, 2, 2},    {1, 1, 1, 100}};
    for (const std::vector<double>& probs : cases) {
        const L::WalkerAlias table(probs);
        double total = 0;
        for (const double v : probs) total += v;
        const std::vector<double> p = table_probabilities(table);
        REQUIRE(p.size() == probs.size());
        for (size_t i = 0; i < p.size(); ++i) CHECK(p[i] == Approx(probs[i] / total).margin(1e-12));
    }
}

TEST_CASE("WalkerAlias draws follow the distribution", "[links][loss]") {
    seed(23);
    const L::WalkerAlias table({1, 0, 3});
    const Array ids = table.sample({200, 100});
    CHECK(ids.shape() == Shape{200, 100});
    CHECK(ids.dtype() == Dtype::kInt32);
    std::vector<double> freq(3, 0.0);
    int64_t out_of_range = 0;
    for (const int32_t id : ids.to_vector<int32_t>()) {
        if (id < 0 || id >= 3) {
            ++out_of_range;
            continue;
        }
        freq[static_cast<size_t>(id)] += 1.0 / 20000.0;
    }
    CHECK(out_of_range == 0);
    CHECK(freq[0] == Approx(0.25).margin(0.015));
    CHECK(freq[1] == 0.0);
    CHECK(freq[2] == Approx(0.75).margin(0.015));
}

TEST_CASE("WalkerAlias rejects bad weights", "[links][loss]") {
    CHECK_THROWS_AS(L::WalkerAlias({}), ValueError);
    CHECK_THROWS_AS(L::WalkerAlias({0, 0}), ValueError);
    CHECK_THROWS_AS(L::WalkerAlias({1, -1}), ValueError);
    CHECK_THROWS_AS(L::NegativeSampling(3, {}, 2), ValueError);
    CHECK_THROWS_AS(L::NegativeSampling(3, {1, 2}, -1), ValueError);
}

TEST_CASE("NegativeSampling holds a zero W", "[links][loss]") {
    L::NegativeSampling ns(3, {1, 2, 3, 4, 5}, 2);
    const auto params = ns.namedparams();
    REQUIRE(params.size() == 1);
    CHECK(params[0].first == "/W");
    CHECK(ns.W.shape() == Shape{5, 3});
    CHECK(ns.W.dtype() == Dtype::kFloat32);
    CHECK(to_doubles(ns.W.array()) == std::vector<double>(15, 0.0));
    CHECK(ns.sample_size == 2);
    // The sampler draws from counts^0.75.
    const std::vector<double> p = table_probabilities(ns.sampler);
    double total = 0;
    for (int c = 1; c <= 5; ++c) total += std::pow(c, 0.75);
    for (int c = 1; c <= 5; ++c)
        CHECK(p[static_cast<size_t>(c - 1)] == Approx(std::pow(c, 0.75) / total).epsilon(1e-6));
}

TEST_CASE("NegativeSampling loss", "[links][loss]") {
    L::NegativeSampling ns(3, {1, 2, 3, 4}, 2, 0.75, Dtype::kFloat64);
    const Variable x(ops::uniform({4, 3}, -1, 1, Dtype::kFloat64));
    const Variable t(labels({0, 3, -1, 2}));
    // W = 0: every score is 0, so each of the 3 live rows adds (1 + 2) * log 2.
    CHECK(ns(x, t).item<double>() == Approx(9 * std::log(2.0)));
    const Variable per_row = ns.forward(x, t, "no");
    CHECK(per_row.shape() == Shape{4});
    check_allclose(per_row.array(), {3 * std::log(2.0), 3 * std::log(2.0), 0, 3 * std::log(2.0)}, {4}, {1e-12, 1e-12});
    // The same draws as F::negative_sampling with the link's sampler.
    ns.W.array().assign(ops::uniform({4, 3}, -1, 1, Dtype::kFloat64));
    seed(29);
    const Variable y = ns(x, t);
    seed(29);
    const L::WalkerAlias& table = ns.sampler;
    const Variable expected = F::negative_sampling(
        x, t, ns.W, [&table](const Shape& shape) { return table.sample(shape); }, 2);
    CHECK(y.item<double>() == Approx(expected.item<double>()).epsilon(1e-12));
    CHECK_THROWS_AS(ns(x, t, x), ValueError);
    CHECK_THROWS_AS(ns.forward(x, t, "mean"), ValueError);
    CHECK_THROWS_AS(ns(Variable(ops::uniform({4, 2}, -1, 1, Dtype::kFloat64)), t), DimensionError);
}

TEST_CASE("NegativeSampling gradients", "[links][loss]") {
    L::NegativeSampling ns(3, {2, 1, 3, 1, 2}, 3, 0.75, Dtype::kFloat64);
    seed(31);
    ns.W.array().assign(ops::uniform({5, 3}, -1, 1, Dtype::kFloat64));
    // Every evaluation draws the same negatives.
    const auto f = [&ns](const std::vector<Variable>& xs) {
        seed(37);
        return ns(xs[0], xs[1]);
    };
    check_link_backward(f, {ops::uniform({4, 3}, -1, 1, Dtype::kFloat64), labels({1, -1, 4, 0})}, {ns.W},
                        Array::from_vector(std::vector<double>{1.0}, Shape{}));
}

TEST_CASE("NegativeSampling saves W", "[links][loss]") {
    L::NegativeSampling ns(2, {1, 1, 2}, 1);
    ns.W.array().fill(0.5);
    L::NegativeSampling target(2, {1, 1, 2}, 1);
    CHECK(npz_round_trip(ns, target) == std::vector<std::string>{"W"});
    CHECK(to_doubles(target.W.array()) == std::vector<double>(6, 0.5));
    const auto copy = std::dynamic_pointer_cast<L::NegativeSampling>(ns.copy());
    REQUIRE(copy);
    CHECK(copy->sampler.values() == ns.sampler.values());
}

TEST_CASE("NegativeSampling on CUDA draws the same negatives as the CPU", "[links][loss][cuda]") {
    if (!has_cuda()) return;
    L::NegativeSampling ns(3, {1, 2, 3, 4}, 2);
    ns.W.array().assign(ops::uniform({4, 3}, -1, 1));
    const Array x = ops::uniform({4, 3}, -1, 1);
    const Array t = labels({0, 3, -1, 2});
    seed(47);
    const double expected = ns(Variable(x), Variable(t)).item<double>();
    ns.to_device(Device::cuda(0));
    CHECK(ns.W.device() == Device::cuda(0));
    CHECK(ns.sampler.sample({2}, Device::cuda(0)).device() == Device::cuda(0));
    seed(47);
    const Variable y = ns(Variable(x.to_device(Device::cuda(0))), Variable(t.to_device(Device::cuda(0))));
    CHECK(y.device() == Device::cuda(0));
    CHECK(y.item<double>() == Approx(expected).epsilon(1e-5));
}
