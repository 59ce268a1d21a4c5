// MomentumSGD: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double, its state keys and a save/load round trip.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizers/momentum_sgd.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::MomentumSGD;

TEST_CASE("MomentumSGD: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const MomentumSGD defaults;
    CHECK(defaults.lr() == 0.01);
    CHECK(defaults.hyperparam().get("lr") == 0.01);
    CHECK(defaults.momentum() == 0.9);
    CHECK(defaults.hyperparam().get("momentum") == 0.9);
    const MomentumSGD custom({.lr = 0.05, .momentum = 0.8});
    CHECK(custom.lr() == 0.05);
    CHECK(custom.momentum() == 0.8);
}

TEST_CASE("MomentumSGD: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
        MomentumSGD optimizer({.lr = 0.05, .momentum = 0.8});
        std::vector<double> v(5, 0.0);
        testing::check_quadratic_steps(
            optimizer,
            [&](std::vector<double>& w, const std::vector<double>& g, int64_t t) {
                static_cast<void>(t);
                for (size_t i = 0; i < w.size(); ++i) {
                    v[i] = 0.8 * v[i] - 0.05 * g[i];
                    w[i] += v[i];
                }
            },
            dtype);
    }
}

TEST_CASE("MomentumSGD: state keys and a save/load round trip continue identically", "[optimizers]") {
    MomentumSGD optimizer({.lr = 0.05, .momentum = 0.8});
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{"v"});
    testing::check_serialization_roundtrip(
        [] { return std::make_unique<MomentumSGD>(optimizers::MomentumSGDOptions{.lr = 0.05, .momentum = 0.8}); });
}
