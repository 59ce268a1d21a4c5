// SGD: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double, its state keys and a save/load round trip.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizers/sgd.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::SGD;

TEST_CASE("SGD: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const SGD defaults;
    CHECK(defaults.lr() == 0.01);
    CHECK(defaults.hyperparam().get("lr") == 0.01);
    const SGD custom({.lr = 0.05});
    CHECK(custom.lr() == 0.05);
}

TEST_CASE("SGD: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
        SGD optimizer({.lr = 0.05});

        testing::check_quadratic_steps(
            optimizer,
            [&](std::vector<double>& w, const std::vector<double>& g, int64_t t) {
                static_cast<void>(t);
                for (size_t i = 0; i < w.size(); ++i) {
                    w[i] -= 0.05 * g[i];
                }
            },
            dtype);
    }
}

TEST_CASE("SGD: state keys and a save/load round trip continue identically", "[optimizers]") {
    SGD optimizer({.lr = 0.05});
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{});
    testing::check_serialization_roundtrip([] { return std::make_unique<SGD>(optimizers::SGDOptions{.lr = 0.05}); });
}
