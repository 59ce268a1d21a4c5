// RMSprop: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double (eps outside and inside the square root), the eps
// check, its state keys and a save/load round trip.

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "optimizers/rmsprop.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::RMSprop;

TEST_CASE("RMSprop: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const RMSprop defaults;
    CHECK(defaults.lr() == 0.01);
    CHECK(defaults.alpha() == 0.99);
    CHECK(defaults.eps() == 1e-8);
    CHECK_FALSE(defaults.eps_inside_sqrt());
    CHECK(defaults.hyperparam().get("eps_inside_sqrt") == 0.0);
    const RMSprop custom({.lr = 0.1, .alpha = 0.9, .eps = 1e-4, .eps_inside_sqrt = true});
    CHECK(custom.hyperparam().get("lr") == 0.1);
    CHECK(custom.hyperparam().get("alpha") == 0.9);
    CHECK(custom.eps_inside_sqrt());
}

TEST_CASE("RMSprop: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const bool inside : {false, true}) {
        for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
            RMSprop optimizer({.lr = 0.02, .alpha = 0.9, .eps = 1e-3, .eps_inside_sqrt = inside});
            std::vector<double> ms(5, 0.0);
            testing::check_quadratic_steps(
                optimizer,
                [&](std::vector<double>& w, const std::vector<double>& g, int64_t) {
                    for (size_t i = 0; i < w.size(); ++i) {
                        ms[i] = 0.9 * ms[i] + 0.1 * g[i] * g[i];
                        w[i] -= 0.02 * g[i] / (inside ? std::sqrt(ms[i] + 1e-3) : std::sqrt(ms[i]) + 1e-3);
                    }
                },
                dtype);
        }
    }
}

TEST_CASE("RMSprop: an eps that vanishes in float32 is an error", "[optimizers]") {
    RMSprop optimizer({.eps = 1e-50});
    auto link = std::make_shared<testing::QuadraticParam>(Dtype::kFloat32);
    optimizer.setup(link);
    testing::set_quadratic_grad(*link);
    CHECK_THROWS_AS(optimizer.update(), ValueError);
    CHECK_THROWS_WITH(optimizer.update(), Catch::Matchers::Contains("eps of RMSprop optimizer"));
    RMSprop in_double({.eps = 1e-50});
    auto link64 = std::make_shared<testing::QuadraticParam>(Dtype::kFloat64);
    in_double.setup(link64);
    testing::set_quadratic_grad(*link64);
    CHECK_NOTHROW(in_double.update());
}

TEST_CASE("RMSprop: state keys and a save/load round trip continue identically", "[optimizers]") {
    RMSprop optimizer;
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{"ms"});
    testing::check_serialization_roundtrip(
        [] { return std::make_unique<RMSprop>(optimizers::RMSpropOptions{.lr = 0.05}); });
}
