// MSVAG: Chainer's defaults and hyperparameter names, steps on a quadratic against the
// update computed by hand in double (with and without weight decay), its state keys and
// a save/load round trip.

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizers/msvag.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::MSVAG;
using optimizers::MSVAGOptions;

namespace {

// Chainer's MSVAGRule.update_core_cpu in double, beta_power kept like Chainer keeps it.
struct MsvagReference {
    MSVAGOptions o;
    double beta_power = o.beta;
    std::vector<double> m = std::vector<double>(5, 0.0), v = m;

    void operator()(std::vector<double>& w, const std::vector<double>& g, int64_t) {
        const double b = o.beta;
        const double rho = std::min(0.9999, (1 - b) * (1 - b) * (1 - beta_power * beta_power) /
                                                ((1 - beta_power) * (1 - beta_power) * (1 - b * b)));
        for (size_t i = 0; i < w.size(); ++i) {
            m[i] += (1 - b) * (g[i] - m[i]);
            v[i] += (1 - b) * (g[i] * g[i] - v[i]);
            const double mt = m[i] / (1 - beta_power);
            const double vt = v[i] / (1 - beta_power);
            const double s = (vt - mt * mt) / (1 - rho);
            double factor = std::clamp(mt * mt / (mt * mt + rho * s), 0.0, 1.0);
            if (std::isnan(factor)) factor = 0.0;
            w[i] -= o.eta * (o.lr * mt * factor + o.weight_decay_rate * w[i]);
        }
        beta_power *= b;
    }
};

}  // namespace

TEST_CASE("MSVAG: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const MSVAG defaults;
    CHECK(defaults.lr() == 0.1);
    CHECK(defaults.beta() == 0.9);
    CHECK(defaults.eta() == 1.0);
    CHECK(defaults.weight_decay_rate() == 0.0);
    const MSVAG custom({.lr = 0.2, .beta = 0.8, .eta = 0.5, .weight_decay_rate = 0.1});
    CHECK(custom.hyperparam().get("lr") == 0.2);
    CHECK(custom.hyperparam().get("beta") == 0.8);
    CHECK(custom.hyperparam().get("eta") == 0.5);
    CHECK(custom.hyperparam().get("weight_decay_rate") == 0.1);
}

TEST_CASE("MSVAG: steps on a quadratic match the update by hand", "[optimizers]") {
    for (const MSVAGOptions& options : {MSVAGOptions{.lr = 0.05, .beta = 0.8},
                                        MSVAGOptions{.lr = 0.05, .beta = 0.8, .eta = 0.5, .weight_decay_rate = 0.1}}) {
        MSVAG optimizer(options);
        MsvagReference reference{options};
        // float64 only: at t = 1 rho is clipped to 0.9999 and s = (vt - mt^2) / 1e-4 turns
        // float32 rounding of vt - mt^2 into a visible change of the factor (as in Chainer).
        testing::check_quadratic_steps(optimizer, std::ref(reference), Dtype::kFloat64, 5,
                                       testing::Tolerance{1e-10, 1e-10});
    }
}

TEST_CASE("MSVAG: state keys and a save/load round trip continue identically", "[optimizers]") {
    MSVAG optimizer;
    CHECK(testing::state_keys_after_update(optimizer) == std::set<std::string>{"m", "v"});
    testing::check_serialization_roundtrip([] { return std::make_unique<MSVAG>(MSVAGOptions{.lr = 0.05}); });
}
