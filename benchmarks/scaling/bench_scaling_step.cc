// Per-step times of the data-parallel MLP for the scaling model (benchmarks/scaling/README.md):
// the loop of benchmarks/distributed/train_mlp_distributed.cc (Chainer's train_mnist MLP, Adam,
// batch 100 per process, Fashion-MNIST shards, the multi-node optimizer), each step timed on
// each rank. With --communicator dummy the ranks do not wait for each other, so the times are
// each rank's own compute, and its step-to-step jitter: what a synchronous all-reduce turns
// into waiting for the slowest rank (run.py's straggler term).
//   mpiexec -n N bench_scaling_step [--iterations 200] [--warmup 20] [--communicator dummy]
// Rank 0 prints one JSON line: {"processes": N, "communicator": "...", "step_ms": [[rank 0's
// steps], [rank 1's], ...]}. Run it with OMP_NUM_THREADS=1 (run.py does).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "benchmarks/train_mlp/mlp.h"
#include "core/random.h"
#include "distributed/communicator.h"
#include "distributed/multi_node_optimizer.h"
#include "distributed/scatter_dataset.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"
#include "training/converter.h"
#include "training/datasets/mnist.h"
#include "training/iterators/serial_iterator.h"

namespace {

using namespace rensa;
namespace dist = rensa::distributed;

struct Args {
    int64_t iterations = 200;
    int64_t warmup = 20;
    std::string communicator = "dummy";
};

Args parse_args(int argc, char** argv) {
    Args args;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--iterations") args.iterations = std::stoll(value);
        if (key == "--warmup") args.warmup = std::stoll(value);
        if (key == "--communicator") args.communicator = value;
    }
    return args;
}

// One step: the next batch, forward, backward, gradient all-reduce, Adam update.
void step(training::iterators::SerialIterator& it, L::Classifier& model, optimizers::Optimizer& optimizer) {
    const training::Example batch = training::concat_examples(*it.next());
    optimizer.update([&] { return model(Variable(batch[0], false), Variable(batch[1], false)); });
}

// This rank's step times in milliseconds, as a JSON list.
std::string timed_steps(const Args& args, training::iterators::SerialIterator& it, L::Classifier& model,
                        optimizers::Optimizer& optimizer) {
    std::ostringstream os;
    os << '[';
    for (int64_t i = 0; i < args.iterations; ++i) {
        const auto start = std::chrono::steady_clock::now();
        step(it, model, optimizer);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        os << (i ? ", " : "") << ms;
    }
    os << ']';
    return os.str();
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse_args(argc, argv);
    seed(0);
    const auto comm = dist::create_communicator(args.communicator);
    auto model = std::make_shared<L::Classifier>(std::make_shared<bench::MLP>());
    model->compute_accuracy = false;
    const auto optimizer = dist::create_multi_node_optimizer(std::make_shared<optimizers::Adam>(), comm, {});
    optimizer->setup(model);
    training::DatasetPtr train;
    if (comm->rank() == 0) train = training::datasets::get_fashion_mnist().first;
    training::iterators::SerialIterator it(dist::scatter_dataset(train, comm, {.shuffle = true, .seed = 0}), 100);

    for (int64_t i = 0; i < args.warmup; ++i) step(it, *model, *optimizer);
    comm->barrier();
    const std::vector<std::string> all = comm->gather_obj(timed_steps(args, it, *model, *optimizer));
    if (comm->rank() == 0) {
        std::printf("{\"processes\": %d, \"communicator\": \"%s\", \"step_ms\": [", comm->size(),
                    args.communicator.c_str());
        for (size_t r = 0; r < all.size(); ++r) std::printf("%s%s", r ? ", " : "", all[r].c_str());
        std::printf("]}\n");
    }
    return 0;
}
