// Adam and its variants (AdamW, AMSGrad, AdaBound, AMSBound): Chainer's defaults, alpha_t,
// steps on a quadratic against the update computed by hand in double, state keys, the
// float16 path and save/load round trips.

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "optimizers/adam.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using optimizers::Adam;
using optimizers::AdamOptions;

namespace {

// Chainer's AdamRule in double; alpha at construction is the AdaBound reference alpha.
struct AdamReference {
    AdamOptions o;
    std::vector<double> m = std::vector<double>(5, 0.0), v = m, vhat = m;

    void operator()(std::vector<double>& w, const std::vector<double>& g, int64_t t) {
        const double td = static_cast<double>(t);
        const double alpha_t = o.alpha * std::sqrt(1 - std::pow(o.beta2, td)) / (1 - std::pow(o.beta1, td));
        const double lower = o.final_lr * (1 - 1 / (o.gamma * td + 1));
        const double upper = o.final_lr * (1 + 1 / (o.gamma * td));
        for (size_t i = 0; i < w.size(); ++i) {
            m[i] = o.beta1 * m[i] + (1 - o.beta1) * g[i];
            v[i] = o.beta2 * v[i] + (1 - o.beta2) * g[i] * g[i];
            vhat[i] = std::max(vhat[i], v[i]);
            double step = alpha_t / (std::sqrt(o.amsgrad ? vhat[i] : v[i]) + o.eps);
            if (o.adabound) step = std::clamp(step, lower, upper);
            w[i] -= o.eta * (step * m[i] + o.weight_decay_rate * w[i]);
        }
    }
};

void check_variant(const AdamOptions& options) {
    for (const Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32}) {
        Adam optimizer(options);
        AdamReference reference{options};
        testing::check_quadratic_steps(optimizer, std::ref(reference), dtype, 5);
    }
}

}  // namespace

TEST_CASE("Adam: Chainer's defaults and hyperparameter names", "[optimizers]") {
    const Adam adam;
    CHECK(adam.alpha() == 0.001);
    CHECK(adam.beta1() == 0.9);
    CHECK(adam.beta2() == 0.999);
    CHECK(adam.eps() == 1e-8);
    CHECK(adam.eta() == 1.0);
    CHECK(adam.weight_decay_rate() == 0.0);
    CHECK_FALSE(adam.amsgrad());
    CHECK_FALSE(adam.adabound());
    CHECK(adam.final_lr() == 0.1);
    CHECK(adam.gamma() == 1e-3);
    for (const char* name :
         {"alpha", "beta1", "beta2", "eps", "eta", "weight_decay_rate", "amsgrad", "adabound", "final_lr", "gamma"}) {
        CHECK(adam.hyperparam().has(name));
    }
    const optimizers::AdamW adamw({.weight_decay_rate = 0.01});
    CHECK(adamw.weight_decay_rate() == 0.01);
    CHECK_FALSE(adamw.amsgrad());
    const optimizers::AMSGrad amsgrad;
    CHECK(amsgrad.amsgrad());
    CHECK_FALSE(amsgrad.adabound());
    const optimizers::AdaBound adabound({.final_lr = 0.2});
    CHECK(adabound.adabound());
    CHECK_FALSE(adabound.amsgrad());
    CHECK(adabound.final_lr() == 0.2);
    const optimizers::AMSBound amsbound;
    CHECK(amsbound.adabound());
    CHECK(amsbound.amsgrad());
}

TEST_CASE("Adam: alpha_t and lr follow Chainer's property", "[optimizers]") {
    Adam adam({.alpha = 0.01, .beta1 = 0.8, .beta2 = 0.9});
    CHECK_THROWS_AS(adam.lr(), Error);  // no step yet
    adam.t = 3;
    const double expected = 0.01 * std::sqrt(1 - std::pow(0.9, 3)) / (1 - std::pow(0.8, 3));
    CHECK(adam.alpha_t() == Approx(expected).epsilon(1e-15));
    CHECK(adam.lr() == adam.alpha_t());
    adam.set_alpha(0.02);  // what an LR shift does
    CHECK(adam.lr() == Approx(2 * expected).epsilon(1e-15));
}

TEST_CASE("Adam: steps on a quadratic match the update by hand", "[optimizers]") {
    check_variant({.alpha = 0.05, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-4});
}

TEST_CASE("Adam: decoupled weight decay with eta (AdamW)", "[optimizers]") {
    check_variant({.alpha = 0.05, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-4, .eta = 0.5, .weight_decay_rate = 0.1});
}

TEST_CASE("Adam: AMSGrad keeps the running maximum vhat", "[optimizers]") {
    check_variant({.alpha = 0.05, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-4, .amsgrad = true});
}

TEST_CASE("Adam: AdaBound and AMSBound clip the step", "[optimizers]") {
    // final_lr and gamma chosen so that both bounds bind during the steps.
    check_variant(
        {.alpha = 0.05, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-4, .adabound = true, .final_lr = 0.02, .gamma = 0.5});
    check_variant({.alpha = 0.05,
                   .beta1 = 0.8,
                   .beta2 = 0.9,
                   .eps = 1e-4,
                   .amsgrad = true,
                   .adabound = true,
                   .final_lr = 0.02,
                   .gamma = 0.5});
}

TEST_CASE("Adam: state keys follow Chainer", "[optimizers]") {
    Adam adam;
    CHECK(testing::state_keys_after_update(adam) == std::set<std::string>{"m", "v"});
    optimizers::AMSGrad amsgrad;
    CHECK(testing::state_keys_after_update(amsgrad) == std::set<std::string>{"m", "v", "vhat"});
}

TEST_CASE("Adam: float16 parameters, directly and through float32 master copies", "[optimizers]") {
    for (const bool fp32 : {false, true}) {
        Adam optimizer({.alpha = 0.05, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-4});
        optimizer.use_fp32_update(fp32);
        auto link = std::make_shared<testing::QuadraticParam>(Dtype::kFloat16);
        optimizer.setup(link);
        AdamReference reference{{.alpha = 0.05, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-4}};
        std::vector<double> w = testing::to_doubles(link->w.array());
        for (int64_t t = 1; t <= 3; ++t) {
            testing::set_quadratic_grad(*link);
            reference(w, testing::quadratic_grad(testing::to_doubles(link->w.array())), t);
            optimizer.update();
            CHECK(link->w.dtype() == Dtype::kFloat16);
            testing::check_allclose(link->w.array(), w, {5}, {3e-3, 3e-3});
        }
        const auto& state = dynamic_cast<optimizers::UpdateRule&>(*link->w.update_rule()).state;
        CHECK(state.at("m").dtype() == (fp32 ? Dtype::kFloat32 : Dtype::kFloat16));
    }
}

TEST_CASE("Adam: save/load round trips continue identically", "[optimizers]") {
    testing::check_serialization_roundtrip([] { return std::make_unique<Adam>(AdamOptions{.alpha = 0.05}); });
    testing::check_serialization_roundtrip([] {
        return std::make_unique<optimizers::AMSBound>(optimizers::AdaBoundOptions{.alpha = 0.05, .final_lr = 0.02});
    });
}
