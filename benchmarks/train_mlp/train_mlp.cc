// One epoch of MLP training on Fashion-MNIST (784-1000-1000-10, ReLU, Adam, batch 100,
// softmax cross entropy): shuffle, batch assembly and train step timed together. Prints
// one JSON line; run.py runs it beside the same model in PyTorch.
//   train_mlp [iterations] [--loop trainer|iterator|manual]   (default: one epoch, trainer)

#include <memory>

#include "benchmarks/train_mlp/train_loop.h"
#include "core/random.h"
#include "functions/activation.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"

using namespace rensa;

namespace {

class MLP : public L::Cloneable<MLP, L::Chain> {
public:
    MLP() {
        l1 = add_link("l1", std::make_shared<L::Linear>(784, 1000));
        l2 = add_link("l2", std::make_shared<L::Linear>(1000, 1000));
        l3 = add_link("l3", std::make_shared<L::Linear>(1000, 10));
    }
    using L::Chain::forward;
    Variable forward(const Variable& x) override { return (*l3)(F::relu((*l2)(F::relu((*l1)(x))))); }
    std::shared_ptr<L::Linear> l1, l2, l3;
};

}  // namespace

int main(int argc, char** argv) {
    seed(0);
    auto model = std::make_shared<L::Classifier>(std::make_shared<MLP>());
    auto optimizer = std::make_shared<optimizers::Adam>();
    bench::train(model, optimizer, {784}, bench::parse_args(argc, argv));
    return 0;
}
