// AdaDelta: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double, its state keys and a save/load round trip.

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizers/ada_delta.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::AdaDelta;

TEST_CASE("AdaDelta: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const AdaDelta defaults;
    CHECK(defaults.rho() == 0.95);
    CHECK(defaults.hyperparam().get("rho") == 0.95);
    CHECK(defaults.eps() == 1e-6);
    CHECK(defaults.hyperparam().get("eps") == 1e-6);
    const AdaDelta custom({.rho = 0.9, .eps = 1e-3});
    CHECK(custom.rho() == 0.9);
    CHECK(custom.eps() == 1e-3);
}

TEST_CASE("AdaDelta: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
        AdaDelta optimizer({.rho = 0.9, .eps = 1e-3});
        std::vector<double> msg(5, 0.0), msdx(5, 0.0);
        testing::check_quadratic_steps(
            optimizer,
            [&](std::vector<double>& w, const std::vector<double>& g, int64_t t) {
                static_cast<void>(t);
                for (size_t i = 0; i < w.size(); ++i) {
                    msg[i] = 0.9 * msg[i] + 0.1 * g[i] * g[i];
                    const double dx = std::sqrt((msdx[i] + 1e-3) / (msg[i] + 1e-3)) * g[i];
                    msdx[i] = 0.9 * msdx[i] + 0.1 * dx * dx;
                    w[i] -= dx;
                }
            },
            dtype);
    }
}

TEST_CASE("AdaDelta: state keys and a save/load round trip continue identically", "[optimizers]") {
    AdaDelta optimizer({.rho = 0.9, .eps = 1e-3});
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{"msg", "msdx"});
    testing::check_serialization_roundtrip(
        [] { return std::make_unique<AdaDelta>(optimizers::AdaDeltaOptions{.rho = 0.9, .eps = 1e-3}); });
}
