// Optimizer updates of the parameters of an MLP 784-1000-1000-10 (float32, 1.79M
// elements), each beside its baseline in the same run: Adam and MomentumSGD through
// optimizer.update() (one fused ops::fused_update pass per parameter, see Note [Fused
// updates]) against the same math as a chain of core ops per parameter, the way
// Chainer's CPU update_core writes it; MomentumSGD also as the bare kernel calls, which
// shows what the optimizer's bookkeeping around them costs.

#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/fused_update.h"
#include "core/ops/random.h"
#include "links/link.h"
#include "optimizers/adam.h"
#include "optimizers/momentum_sgd.h"

namespace {

using rensa::Array;
using rensa::FusedUpdateArgs;
using rensa::Scalar;
using rensa::links::Parameter;
namespace ops = rensa::ops;
namespace optimizers = rensa::optimizers;

// The parameters (and grads) of Linear(784, 1000), Linear(1000, 1000), Linear(1000, 10).
class MlpParams : public rensa::links::Link {
public:
    Parameter W1, b1, W2, b2, W3, b3;
    MlpParams() {
        add("W1", &MlpParams::W1, {1000, 784});
        add("b1", &MlpParams::b1, {1000});
        add("W2", &MlpParams::W2, {1000, 1000});
        add("b2", &MlpParams::b2, {1000});
        add("W3", &MlpParams::W3, {10, 1000});
        add("b3", &MlpParams::b3, {10});
    }
    std::vector<Parameter*> all() { return {&W1, &b1, &W2, &b2, &W3, &b3}; }

private:
    void add(const char* name, Parameter MlpParams::*member, const rensa::Shape& shape) {
        register_param(name, member, Parameter(ops::normal(shape, 0.0, 0.05)));
        (this->*member).set_grad(ops::normal(shape, 0.0, 0.01));
    }
};

int64_t total_elements(MlpParams& mlp) {
    int64_t n = 0;
    for (Parameter* p : mlp.all()) n += p->array().size();
    return n;
}

// Bytes of param, grad and `states` arrays read plus param and states written, per update.
void set_bytes(benchmark::State& state, MlpParams& mlp, int states) {
    state.SetBytesProcessed(state.iterations() * total_elements(mlp) * 4 * (3 + 2 * states));
}

void BM_adam_fused(benchmark::State& state) {
    auto mlp = std::make_shared<MlpParams>();
    optimizers::Adam adam;
    adam.setup(mlp);
    for (auto _ : state) adam.update();
    set_bytes(state, *mlp, 2);
}
BENCHMARK(BM_adam_fused)->Unit(benchmark::kMillisecond)->UseRealTime();

// Chainer's AdamRule.update_core_cpu as core ops (eta = 1, weight_decay_rate = 0).
void BM_adam_composite(benchmark::State& state) {
    auto mlp = std::make_shared<MlpParams>();
    std::vector<Array> ms, vs;
    for (Parameter* p : mlp->all()) {
        ms.push_back(ops::zeros_like(p->array()));
        vs.push_back(ops::zeros_like(p->array()));
    }
    const double alpha = 0.001, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    int64_t t = 0;
    for (auto _ : state) {
        ++t;
        const double alpha_t = alpha * std::sqrt(1 - std::pow(beta2, t)) / (1 - std::pow(beta1, t));
        const std::vector<Parameter*> params = mlp->all();
        for (size_t i = 0; i < params.size(); ++i) {
            const Array& g = params[i]->grad();
            ops::add_inplace(ms[i], ops::multiply(ops::subtract(g, ms[i]), Scalar(1 - beta1)));
            ops::add_inplace(vs[i], ops::multiply(ops::subtract(ops::multiply(g, g), vs[i]), Scalar(1 - beta2)));
            const Array step = ops::divide(ms[i], ops::add(ops::sqrt(vs[i]), Scalar(eps)));
            ops::add_inplace(params[i]->array(), ops::multiply(step, Scalar(-alpha_t)));
        }
    }
    set_bytes(state, *mlp, 2);
}
BENCHMARK(BM_adam_composite)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_momentum_sgd_fused(benchmark::State& state) {
    auto mlp = std::make_shared<MlpParams>();
    optimizers::MomentumSGD sgd;
    sgd.setup(mlp);
    for (auto _ : state) sgd.update();
    set_bytes(state, *mlp, 1);
}
BENCHMARK(BM_momentum_sgd_fused)->Unit(benchmark::kMillisecond)->UseRealTime();

// The fused kernel alone, without the optimizer's bookkeeping around it.
void BM_momentum_sgd_kernel(benchmark::State& state) {
    auto mlp = std::make_shared<MlpParams>();
    std::vector<FusedUpdateArgs> updates;
    for (Parameter* p : mlp->all()) {
        optimizers::MomentumSGDRule rule;
        rule.hyperparam().set("lr", 0.01);
        rule.hyperparam().set("momentum", 0.9);
        rule.state["v"] = ops::zeros_like(p->array());
        updates.push_back(rule.update_args(p->array(), p->grad()));
    }
    for (auto _ : state) {
        for (const FusedUpdateArgs& update : updates) ops::fused_update(update);
    }
    set_bytes(state, *mlp, 1);
}
BENCHMARK(BM_momentum_sgd_kernel)->Unit(benchmark::kMillisecond)->UseRealTime();

// Chainer's MomentumSGDRule.update_core_cpu: v *= momentum; v -= lr * grad; param += v.
void BM_momentum_sgd_composite(benchmark::State& state) {
    auto mlp = std::make_shared<MlpParams>();
    std::vector<Array> vs;
    for (Parameter* p : mlp->all()) vs.push_back(ops::zeros_like(p->array()));
    const double lr = 0.01, momentum = 0.9;
    for (auto _ : state) {
        const std::vector<Parameter*> params = mlp->all();
        for (size_t i = 0; i < params.size(); ++i) {
            ops::multiply_inplace(vs[i], Scalar(momentum));
            ops::add_inplace(vs[i], ops::multiply(params[i]->grad(), Scalar(-lr)));
            ops::add_inplace(params[i]->array(), vs[i]);
        }
    }
    set_bytes(state, *mlp, 1);
}
BENCHMARK(BM_momentum_sgd_composite)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
