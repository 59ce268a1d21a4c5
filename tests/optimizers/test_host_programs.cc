// Note [Programs compiled for the host]: every optimizer's program, run as its host loop
// (ops::host_update) and interpreted by the native kernel, gives the same bits, on every
// float dtype and on sizes with vector tails.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ops/fused_update.h"
#include "optimizers/optimizers.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;
using namespace rensa::optimizers;

namespace {

using Hyper = std::vector<std::pair<std::string, double>>;
using Maker = std::function<FusedUpdateArgs(const Array&, const Array&, const std::vector<Array>&)>;

template <class Rule>
Maker rule(Hyper hyper, std::vector<std::string> names) {
    return [=](const Array& param, const Array& grad, const std::vector<Array>& states) {
        Rule r;
        for (const auto& [key, value] : hyper) r.hyperparam().set(key, value);
        r.t = 3;
        for (size_t i = 0; i < names.size(); ++i) r.state[names[i]] = states[i];
        return r.update_args(param, grad);
    };
}

struct Case {
    std::string name;
    Maker make;
    int n_states;
};

std::vector<Case> cases() {
    const Hyper adam = {{"alpha", 0.01}, {"eps", 1e-3}, {"eta", 0.5}, {"weight_decay_rate", 0.01}};
    const auto with = [](Hyper h, std::pair<std::string, double> more) {
        h.push_back(std::move(more));
        return h;
    };
    return {
        {"sgd", rule<SGDRule>({{"lr", 0.1}}, {}), 0},
        {"momentum_sgd", rule<MomentumSGDRule>({{"lr", 0.1}, {"momentum", 0.9}}, {"v"}), 1},
        {"nesterov_ag", rule<NesterovAGRule>({{"lr", 0.1}, {"momentum", 0.9}}, {"v"}), 1},
        {"corrected_momentum_sgd", rule<CorrectedMomentumSGDRule>({{"lr", 0.1}, {"momentum", 0.9}}, {"v"}), 1},
        {"ada_grad", rule<AdaGradRule>({{"lr", 0.1}, {"eps", 1e-3}}, {"h"}), 1},
        {"ada_delta", rule<AdaDeltaRule>({{"rho", 0.95}, {"eps", 1e-3}}, {"msg", "msdx"}), 2},
        {"rmsprop", rule<RMSpropRule>({{"lr", 0.1}, {"alpha", 0.99}, {"eps", 1e-3}}, {"ms"}), 1},
        {"rmsprop eps_inside_sqrt",
         rule<RMSpropRule>({{"lr", 0.1}, {"alpha", 0.99}, {"eps", 1e-3}, {"eps_inside_sqrt", 1.0}}, {"ms"}), 1},
        {"rmsprop_graves",
         rule<RMSpropGravesRule>({{"lr", 0.01}, {"momentum", 0.9}, {"alpha", 0.95}, {"eps", 1e-2}},
                                 {"n", "g", "delta"}),
         3},
        {"smorms3", rule<SMORMS3Rule>({{"lr", 0.01}, {"eps", 1e-3}}, {"mem", "g", "g2"}), 3},
        {"adam", rule<AdamRule>(adam, {"m", "v"}), 2},
        {"amsgrad", rule<AdamRule>(with(adam, {"amsgrad", 1.0}), {"m", "v", "vhat"}), 3},
        {"adabound", rule<AdamRule>(with(with(adam, {"adabound", 1.0}), {"final_lr", 0.1}), {"m", "v"}), 2},
        {"msvag", rule<MSVAGRule>({{"lr", 0.1}, {"beta", 0.9}, {"eta", 1.0}, {"weight_decay_rate", 0.01}}, {"m", "v"}),
         2},
    };
}

// n values over [low, high) (deterministic).
std::vector<double> values(int64_t n, double low, double high, double phase) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(low + (high - low) * std::fmod(phase + 0.754877666 * double(i), 1.0));
    return v;
}

bool same_bits(const Array& a, const Array& b) {
    return a.nbytes() == b.nbytes() && std::memcmp(a.raw_data(), b.raw_data(), static_cast<size_t>(a.nbytes())) == 0;
}

}  // namespace

TEST_CASE("optimizers: programs compiled for the host match the interpreter bit for bit", "[optimizers]") {
    // State ranges that keep every rule's square roots real (rmsprop_graves: g^2 < n; smorms3: g^2 <= g2).
    const double low[3] = {6.0, 0.1, 1.0}, high[3] = {8.0, 0.3, 2.0};
    for (const Case& c : cases()) {
        for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kFloat16, Dtype::kBFloat16}) {
            for (int64_t n : {int64_t{1}, int64_t{37}, int64_t{4099}}) {
                INFO(c.name << " " << dtype_name(dtype) << " n=" << n);
                std::vector<Array> states;
                for (int s = 0; s < c.n_states; ++s)
                    states.push_back(make_array(values(n, low[s], high[s], 0.3 * s), {n}, dtype));
                const FusedUpdateArgs host = c.make(make_array(values(n, -2, 2, 0.1), {n}, dtype),
                                                    make_array(values(n, -2, 2, 0.7), {n}, dtype), states);
                REQUIRE(host.program->host != nullptr);
                FusedUpdateArgs interpreted = host;
                auto program = std::make_shared<UpdateProgram>(*host.program);
                program->host = nullptr;
                interpreted.program = program;
                interpreted.param = host.param.copy();
                for (int s = 0; s < c.n_states; ++s) interpreted.states[s] = host.states[s].copy();
                ops::fused_update(host);
                ops::fused_update(interpreted);
                CHECK(same_bits(host.param, interpreted.param));
                for (int s = 0; s < c.n_states; ++s) CHECK(same_bits(host.states[s], interpreted.states[s]));
            }
        }
    }
}
