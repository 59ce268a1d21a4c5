// Training parity: an MLP (Adam) and a small CNN (MomentumSGD) trained 5 steps on fixed
// random data on native:0 and on cuda:0 from identical initial parameters; the losses
// and the final parameters must agree to float32 precision (TF32 off).

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/random.h"
#include "cuda/handles.h"
#include "functions/functions.h"
#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"
#include "links/normalization/batch_normalization.h"
#include "optimizers/adam.h"
#include "optimizers/momentum_sgd.h"
#include "tests/cuda/cuda_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

class Mlp : public L::Cloneable<Mlp, L::Chain> {
public:
    Mlp() {
        l1 = add_link("l1", std::make_shared<L::Linear>(20, 32));
        l2 = add_link("l2", std::make_shared<L::Linear>(32, 5));
    }
    using L::Chain::forward;
    Variable forward(const Variable& x) override { return (*l2)(F::relu((*l1)(x))); }
    std::shared_ptr<L::Linear> l1, l2;
};

class Cnn : public L::Cloneable<Cnn, L::Chain> {
public:
    Cnn() {
        conv = add_link("conv", std::make_shared<L::Convolution2D>(3, 8, 3, L::Convolution2DOptions{.pad = 1}));
        bn = add_link("bn", std::make_shared<L::BatchNormalization>(8));
        fc = add_link("fc", std::make_shared<L::Linear>(8 * 6 * 6, 5));
    }
    using L::Chain::forward;
    Variable forward(const Variable& x) override { return (*fc)(F::max_pooling_2d(F::relu((*bn)((*conv)(x))), 2)); }
    std::shared_ptr<L::Convolution2D> conv;
    std::shared_ptr<L::BatchNormalization> bn;
    std::shared_ptr<L::Linear> fc;
};

struct Run {
    std::vector<double> losses;
    std::map<std::string, Array> params;  // final values, on the host
};

// Builds the model with a fixed seed (identical initial parameters on every device),
// moves it to `device` and trains `steps` full-batch steps on (x, t).
template <class Model>
Run train(Device device, const std::shared_ptr<optimizers::Optimizer>& optimizer, const Array& x, const Array& t,
          int steps = 5) {
    seed(0);
    auto model = std::make_shared<Model>();
    model->to_device(device);
    optimizer->setup(model);
    const Variable xv(x.to_device(device), false);
    const Variable tv(t.to_device(device), false);
    Run run;
    for (int step = 0; step < steps; ++step) {
        model->cleargrads();
        const Variable loss = F::softmax_cross_entropy((*model)(xv), tv);
        loss.backward();
        optimizer->update();
        run.losses.push_back(loss.array().to_device(Device::native()).astype(Dtype::kFloat64).item<double>());
    }
    for (const auto& [name, param] : model->namedparams()) {
        CHECK(param.array().device() == device);
        run.params.emplace(name, param.array().to_device(Device::native()));
    }
    return run;
}

void check_same(const Run& gpu, const Run& cpu) {
    REQUIRE(gpu.losses.size() == cpu.losses.size());
    for (size_t i = 0; i < cpu.losses.size(); ++i) {
        INFO("loss of step " << i << ": cuda " << gpu.losses[i] << ", native " << cpu.losses[i]);
        CHECK(gpu.losses[i] == Approx(cpu.losses[i]).epsilon(1e-4));
    }
    REQUIRE(gpu.params.size() == cpu.params.size());
    for (const auto& [name, value] : cpu.params) {
        INFO("parameter " << name);
        REQUIRE(gpu.params.count(name) == 1);
        check_allclose(gpu.params.at(name), value, Tolerance{1e-4, 1e-4});
    }
}

}  // namespace

TEST_CASE("cuda: MLP with Adam trains like native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cuda::set_allow_tf32(false);
    const Array x = random_array({16, 20}, Dtype::kFloat32, 1, -1, 1);
    const Array t = random_array({16}, Dtype::kInt32, 2, 0, 5);
    const Run cpu = train<Mlp>(Device::native(), std::make_shared<optimizers::Adam>(), x, t);
    const Run gpu = train<Mlp>(cuda0(), std::make_shared<optimizers::Adam>(), x, t);
    check_same(gpu, cpu);
    CHECK(cpu.losses.back() < cpu.losses.front());  // it does train
}

TEST_CASE("cuda: CNN with MomentumSGD trains like native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cuda::set_allow_tf32(false);
    const Array x = random_array({8, 3, 12, 12}, Dtype::kFloat32, 3, -1, 1);
    const Array t = random_array({8}, Dtype::kInt32, 4, 0, 5);
    const optimizers::MomentumSGDOptions options{.lr = 0.05, .momentum = 0.9};
    const Run cpu = train<Cnn>(Device::native(), std::make_shared<optimizers::MomentumSGD>(options), x, t);
    const Run gpu = train<Cnn>(cuda0(), std::make_shared<optimizers::MomentumSGD>(options), x, t);
    check_same(gpu, cpu);
    CHECK(cpu.losses.back() < cpu.losses.front());
}
