// SMORMS3: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double, its state keys and a save/load round trip.

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizers/smorms3.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::SMORMS3;

TEST_CASE("SMORMS3: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const SMORMS3 defaults;
    CHECK(defaults.lr() == 0.001);
    CHECK(defaults.hyperparam().get("lr") == 0.001);
    CHECK(defaults.eps() == 1e-16);
    CHECK(defaults.hyperparam().get("eps") == 1e-16);
    const SMORMS3 custom({.lr = 0.05, .eps = 1e-8});
    CHECK(custom.lr() == 0.05);
    CHECK(custom.eps() == 1e-8);
}

TEST_CASE("SMORMS3: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
        SMORMS3 optimizer({.lr = 0.05, .eps = 1e-8});
        std::vector<double> mem(5, 1.0), mg(5, 0.0), g2(5, 0.0);
        testing::check_quadratic_steps(
            optimizer,
            [&](std::vector<double>& w, const std::vector<double>& g, int64_t t) {
                static_cast<void>(t);
                for (size_t i = 0; i < w.size(); ++i) {
                    const double r = 1 / (mem[i] + 1);
                    mg[i] = (1 - r) * mg[i] + r * g[i];
                    g2[i] = (1 - r) * g2[i] + r * g[i] * g[i];
                    const double x = mg[i] * mg[i] / (g2[i] + 1e-8);
                    w[i] -= g[i] * std::min(x, 0.05) / (std::sqrt(g2[i]) + 1e-8);
                    mem[i] = 1 + mem[i] * (1 - x);
                }
            },
            dtype);
    }
}

TEST_CASE("SMORMS3: state keys and a save/load round trip continue identically", "[optimizers]") {
    SMORMS3 optimizer({.lr = 0.05, .eps = 1e-8});
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{"mem", "g", "g2"});
    testing::check_serialization_roundtrip(
        [] { return std::make_unique<SMORMS3>(optimizers::SMORMS3Options{.lr = 0.05, .eps = 1e-8}); });
}
