// ConvNet training on Fashion-MNIST: conv5x5 32 (pad 2), relu, max pool 2, conv5x5 64
// (pad 2), relu, max pool 2, linear 1024, relu, linear 10; MomentumSGD(lr 0.01, momentum
// 0.9), batch 100, softmax cross entropy. Shuffle, batch assembly and train step timed
// together. Prints one JSON line; run.py runs it beside the same model in PyTorch.
//   train_convnet [iterations] [--loop trainer|iterator|manual] [--dtype float32|mixed_bf16] [--epochs N]
//   (default: one epoch, trainer, float32; benchmarks/train_mlp/train_loop.h says what the options do)

#include <memory>

#include "benchmarks/train_mlp/train_loop.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/pooling.h"
#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/momentum_sgd.h"

using namespace rensa;

namespace {

class ConvNet : public L::Cloneable<ConvNet, L::Chain> {
public:
    ConvNet() {
        conv1 = add_link("conv1", std::make_shared<L::Convolution2D>(1, 32, 5, L::Convolution2DOptions{.pad = 2}));
        conv2 = add_link("conv2", std::make_shared<L::Convolution2D>(32, 64, 5, L::Convolution2DOptions{.pad = 2}));
        fc1 = add_link("fc1", std::make_shared<L::Linear>(7 * 7 * 64, 1024));
        fc2 = add_link("fc2", std::make_shared<L::Linear>(1024, 10));
    }
    using L::Chain::forward;
    Variable forward(const Variable& x) override {
        // mixed_input/mixed_output: bfloat16 inside under --dtype mixed_bf16 (train_loop.h).
        Variable h = F::max_pooling_2d(F::relu((*conv1)(bench::mixed_input(x))), 2);
        h = F::max_pooling_2d(F::relu((*conv2)(h)), 2);
        return bench::mixed_output((*fc2)(F::relu((*fc1)(h))));
    }
    std::shared_ptr<L::Convolution2D> conv1, conv2;
    std::shared_ptr<L::Linear> fc1, fc2;
};

}  // namespace

int main(int argc, char** argv) {
    const bench::LoopArgs args = bench::parse_args(argc, argv);
    bench::apply_dtype(args);  // before the model: its links read config().dtype
    seed(0);
    auto model = std::make_shared<L::Classifier>(std::make_shared<ConvNet>());
    auto optimizer =
        std::make_shared<optimizers::MomentumSGD>(optimizers::MomentumSGDOptions{.lr = 0.01, .momentum = 0.9});
    bench::train(model, optimizer, {1, 28, 28}, args);
    return 0;
}
