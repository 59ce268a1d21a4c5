// Data-parallel MLP training throughput (issue 7, "Speed"): Chainer's train_mnist MLP
// (784-1000-1000-10, ReLU, softmax cross entropy), Adam, batch 100 per process, on
// Fashion-MNIST shards (rank 0 loads, scatter_dataset with shuffle), the ChainerMN loop:
// SerialIterator, concat_examples, multi-node optimizer update. Weak scaling: each process
// keeps its batch, so N processes train N x 100 images per step.
//   [mpiexec -n N] train_mlp_distributed [--iterations 300] [--warmup 20]
//       [--communicator flat] [--overlap on|off] [--bucket-mib 25]
// Rank 0 prints one JSON line: images/s over all processes, step time, the last loss.
// Run it with OMP_NUM_THREADS=1 per process (benchmarks/distributed/run.py does).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

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

using bench::MLP;

struct Args {
    int64_t iterations = 300;
    int64_t warmup = 20;
    std::string communicator = "flat";
    bool overlap = true;
    double bucket_mib = 25;
};

Args parse_args(int argc, char** argv) {
    Args args;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--iterations") args.iterations = std::stoll(value);
        if (key == "--warmup") args.warmup = std::stoll(value);
        if (key == "--communicator") args.communicator = value;
        if (key == "--overlap") args.overlap = value == "on";
        if (key == "--bucket-mib") args.bucket_mib = std::stod(value);
    }
    return args;
}

// This rank's shard of the training set: loaded on rank 0 only, scattered shuffled.
training::DatasetPtr load_shard(const dist::CommunicatorPtr& comm) {
    training::DatasetPtr train;
    if (comm->rank() == 0) train = training::datasets::get_fashion_mnist().first;
    return dist::scatter_dataset(train, comm, {.shuffle = true, .seed = 0});
}

// One step: the next batch, forward, backward, gradient all-reduce, Adam update.
void step(training::iterators::SerialIterator& it, L::Classifier& model, optimizers::Optimizer& optimizer) {
    const training::Example batch = training::concat_examples(*it.next());
    optimizer.update([&] { return model(Variable(batch[0], false), Variable(batch[1], false)); });
}

// The optimizer: Adam, wrapped in a multi-node optimizer unless comm is null.
std::shared_ptr<optimizers::Optimizer> make_optimizer(const dist::CommunicatorPtr& comm, const Args& args) {
    auto adam = std::make_shared<optimizers::Adam>();
    if (!comm) return adam;
    return dist::create_multi_node_optimizer(
        adam, comm, {.overlap = args.overlap, .bucket_size_bytes = static_cast<int64_t>(args.bucket_mib * 1048576)});
}

void print_result(const Args& args, int processes, double seconds, double loss) {
    const double images = static_cast<double>(args.iterations * 100 * processes);
    std::printf(
        "{\"images_per_s\": %.1f, \"seconds\": %.3f, \"step_ms\": %.3f, \"iterations\": %lld, "
        "\"processes\": %d, \"last_loss\": %.4f}\n",
        images / seconds, seconds, seconds * 1e3 / static_cast<double>(args.iterations),
        static_cast<long long>(args.iterations), processes, loss);
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse_args(argc, argv);
    seed(0);
    // --communicator none: plain Adam on the whole training set, no MPI at all (the
    // single-process baseline without any multi-node machinery).
    const auto comm = args.communicator == "none" ? nullptr : dist::create_communicator(args.communicator);
    auto model = std::make_shared<L::Classifier>(std::make_shared<MLP>());
    model->compute_accuracy = false;
    const auto optimizer = make_optimizer(comm, args);
    optimizer->setup(model);
    training::iterators::SerialIterator it(comm ? load_shard(comm) : training::datasets::get_fashion_mnist().first,
                                           100);

    for (int64_t i = 0; i < args.warmup; ++i) step(it, *model, *optimizer);
    if (comm) comm->barrier();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < args.iterations; ++i) step(it, *model, *optimizer);
    if (comm) comm->barrier();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double loss = model->loss.item<double>();
    if (comm) loss = comm->allreduce_obj(loss) / comm->size();
    if (!comm || comm->rank() == 0) print_result(args, comm ? comm->size() : 1, seconds, loss);
    return 0;
}
