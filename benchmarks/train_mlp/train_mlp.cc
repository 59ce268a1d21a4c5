// One epoch of MLP training on Fashion-MNIST (784-1000-1000-10, ReLU, Adam, batch 100,
// softmax cross entropy): shuffle, batch assembly and train step timed together. Prints
// one JSON line; run.py runs it beside the same model in PyTorch.
//   train_mlp [iterations] [--loop trainer|iterator|manual] [--dtype float32|mixed_bf16] [--epochs N]
//   (default: one epoch, trainer, float32; train_loop.h says what the options do)

#include <memory>

#include "benchmarks/train_mlp/mlp.h"
#include "benchmarks/train_mlp/train_loop.h"
#include "core/random.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"

using namespace rensa;

int main(int argc, char** argv) {
    const bench::LoopArgs args = bench::parse_args(argc, argv);
    bench::apply_dtype(args);  // before the model: its links read config().dtype
    seed(0);
    auto model = std::make_shared<L::Classifier>(std::make_shared<bench::MLP>());
    auto optimizer = std::make_shared<optimizers::Adam>();
    bench::train(model, optimizer, {784}, args);
    return 0;
}
