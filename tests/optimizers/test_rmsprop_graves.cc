// RMSpropGraves: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double, its state keys and a save/load round trip.

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizers/rmsprop_graves.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::RMSpropGraves;

TEST_CASE("RMSpropGraves: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const RMSpropGraves defaults;
    CHECK(defaults.lr() == 1e-4);
    CHECK(defaults.hyperparam().get("lr") == 1e-4);
    CHECK(defaults.alpha() == 0.95);
    CHECK(defaults.hyperparam().get("alpha") == 0.95);
    CHECK(defaults.momentum() == 0.9);
    CHECK(defaults.hyperparam().get("momentum") == 0.9);
    CHECK(defaults.eps() == 1e-4);
    CHECK(defaults.hyperparam().get("eps") == 1e-4);
    const RMSpropGraves custom({.lr = 0.01, .alpha = 0.9, .momentum = 0.8, .eps = 1e-3});
    CHECK(custom.lr() == 0.01);
    CHECK(custom.alpha() == 0.9);
    CHECK(custom.momentum() == 0.8);
    CHECK(custom.eps() == 1e-3);
}

TEST_CASE("RMSpropGraves: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
        RMSpropGraves optimizer({.lr = 0.01, .alpha = 0.9, .momentum = 0.8, .eps = 1e-3});
        std::vector<double> n(5, 0.0), mg(5, 0.0), delta(5, 0.0);
        testing::check_quadratic_steps(
            optimizer,
            [&](std::vector<double>& w, const std::vector<double>& g, int64_t t) {
                static_cast<void>(t);
                for (size_t i = 0; i < w.size(); ++i) {
                    n[i] = 0.9 * n[i] + 0.1 * g[i] * g[i];
                    mg[i] = 0.9 * mg[i] + 0.1 * g[i];
                    delta[i] = 0.8 * delta[i] - 0.01 * g[i] / std::sqrt(n[i] - mg[i] * mg[i] + 1e-3);
                    w[i] += delta[i];
                }
            },
            dtype);
    }
}

TEST_CASE("RMSpropGraves: state keys and a save/load round trip continue identically", "[optimizers]") {
    RMSpropGraves optimizer({.lr = 0.01, .alpha = 0.9, .momentum = 0.8, .eps = 1e-3});
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{"n", "g", "delta"});
    testing::check_serialization_roundtrip([] {
        return std::make_unique<RMSpropGraves>(
            optimizers::RMSpropGravesOptions{.lr = 0.01, .alpha = 0.9, .momentum = 0.8, .eps = 1e-3});
    });
}
