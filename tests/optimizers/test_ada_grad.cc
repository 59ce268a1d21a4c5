// AdaGrad: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double, its state keys and a save/load round trip.

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizers/ada_grad.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::AdaGrad;

TEST_CASE("AdaGrad: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const AdaGrad defaults;
    CHECK(defaults.lr() == 0.001);
    CHECK(defaults.hyperparam().get("lr") == 0.001);
    CHECK(defaults.eps() == 1e-8);
    CHECK(defaults.hyperparam().get("eps") == 1e-8);
    const AdaGrad custom({.lr = 0.1, .eps = 1e-4});
    CHECK(custom.lr() == 0.1);
    CHECK(custom.eps() == 1e-4);
}

TEST_CASE("AdaGrad: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
        AdaGrad optimizer({.lr = 0.1, .eps = 1e-4});
        std::vector<double> h(5, 0.0);
        testing::check_quadratic_steps(
            optimizer,
            [&](std::vector<double>& w, const std::vector<double>& g, int64_t t) {
                static_cast<void>(t);
                for (size_t i = 0; i < w.size(); ++i) {
                    h[i] += g[i] * g[i];
                    w[i] -= 0.1 * g[i] / (std::sqrt(h[i]) + 1e-4);
                }
            },
            dtype);
    }
}

TEST_CASE("AdaGrad: state keys and a save/load round trip continue identically", "[optimizers]") {
    AdaGrad optimizer({.lr = 0.1, .eps = 1e-4});
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{"h"});
    testing::check_serialization_roundtrip(
        [] { return std::make_unique<AdaGrad>(optimizers::AdaGradOptions{.lr = 0.1, .eps = 1e-4}); });
}
