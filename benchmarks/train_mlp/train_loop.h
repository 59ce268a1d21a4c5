#pragma once
// The timed loop both training benchmarks share: `iterations` steps of batch 100 over the
// Fashion-MNIST train set (shuffle, batch assembly, train step all inside the timing),
// then one JSON line on stdout. Three ways to run it:
//   --loop trainer (default): get_fashion_mnist + SerialIterator (shuffled) + StandardUpdater
//       (concat_examples, optimizer.update) + Trainer stopping at `iterations`, no extensions;
//   --loop iterator: the same data path with the step written out (next, concat_examples,
//       optimizer.update(model, x, t));
//   --loop manual: the images held as one float buffer, a std::shuffle'd order and the
//       batch copied row by row into fresh arrays (the cheapest loading there is).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <numeric>
#include <string>

#include <unistd.h>

#include "benchmarks/train_mlp/bench_data.h"
#include "core/shape.h"
#include "links/model/classifier.h"
#include "optimizers/optimizer.h"
#include "training/converter.h"
#include "training/datasets/mnist.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace rensa::bench {

enum class Loop { kTrainer, kIterator, kManual };

struct LoopArgs {
    int64_t iterations = 0;  // 0: one epoch
    Loop loop = Loop::kTrainer;
};

inline LoopArgs parse_args(int argc, char** argv) {
    LoopArgs args;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--loop" && i + 1 < argc) {
            const std::string l = argv[++i];
            args.loop = l == "manual" ? Loop::kManual : l == "iterator" ? Loop::kIterator : Loop::kTrainer;
        } else {
            args.iterations = std::atoll(argv[i]);
        }
    }
    return args;
}

inline void print_result(int64_t iterations, int64_t batch, double seconds, double loss) {
    std::printf("{\"images_per_s\": %.1f, \"seconds\": %.3f, \"iterations\": %lld, \"last_loss\": %.4f}\n",
                static_cast<double>(iterations * batch) / seconds, seconds, static_cast<long long>(iterations), loss);
}

// Trainer + StandardUpdater; the trainer's output folder is a temporary one, removed after.
inline void train_with_trainer(const std::shared_ptr<links::Classifier>& model,
                               const std::shared_ptr<optimizers::Optimizer>& optimizer, const Shape& x_shape,
                               int64_t iterations_arg, int64_t batch) {
    const auto train_set = training::datasets::get_fashion_mnist({.ndim = static_cast<int>(x_shape.size())}).first;
    const int64_t iterations = iterations_arg > 0 ? iterations_arg : train_set->size() / batch;
    auto it = std::make_shared<training::iterators::SerialIterator>(train_set, batch);
    auto updater = std::make_shared<training::updaters::StandardUpdater>(it, optimizer);
    const auto out = std::filesystem::temp_directory_path() / ("rensa-bench-" + std::to_string(::getpid()));
    training::Trainer trainer(updater, {iterations, "iteration"}, out.string());
    const auto start = std::chrono::steady_clock::now();
    trainer.run();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::filesystem::remove_all(out);
    print_result(iterations, batch, seconds, model->loss.item<double>());
}

// SerialIterator + concat_examples + optimizer.update, written out.
inline void train_with_iterator(links::Classifier& model, optimizers::Optimizer& optimizer, const Shape& x_shape,
                                int64_t iterations_arg, int64_t batch) {
    const auto train_set = training::datasets::get_fashion_mnist({.ndim = static_cast<int>(x_shape.size())}).first;
    const int64_t iterations = iterations_arg > 0 ? iterations_arg : train_set->size() / batch;
    training::iterators::SerialIterator it(train_set, batch);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iterations; ++i) {
        const training::Example b = training::concat_examples(*it.next());
        optimizer.update([&] { return model(Variable(b[0], false), Variable(b[1], false)); });
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_result(iterations, batch, seconds, model.loss.item<double>());
}

// The hand-written loop over one float buffer.
inline void train_manual(links::Classifier& model, optimizers::Optimizer& optimizer, const Shape& x_shape,
                         int64_t iterations_arg, int64_t batch) {
    const auto data = load_fashion_mnist_train();
    const int64_t iterations = iterations_arg > 0 ? iterations_arg : data.n / batch;
    Shape batch_shape{batch};
    for (const int64_t d : x_shape) batch_shape.push_back(d);
    std::vector<int64_t> order(data.n);
    std::mt19937_64 rng(0);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iterations; ++i) {
        const int64_t pos = (i * batch) % data.n;
        if (pos == 0) {
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
        }
        const Array x = Array::empty(batch_shape, Dtype::kFloat32);
        const Array t = Array::empty({batch}, Dtype::kInt32);
        assemble_batch(data, order, pos, x, t);
        optimizer.update([&] { return model(Variable(x, false), Variable(t, false)); });
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_result(iterations, batch, seconds, model.loss.item<double>());
}

// Trains `model` with `optimizer` as args say; x_shape: one example's shape ({784} or {1, 28, 28}).
inline void train(const std::shared_ptr<links::Classifier>& model,
                  const std::shared_ptr<optimizers::Optimizer>& optimizer, const Shape& x_shape, const LoopArgs& args) {
    const int64_t batch = 100;
    model->compute_accuracy = false;
    optimizer->setup(model);
    switch (args.loop) {
        case Loop::kTrainer:
            return train_with_trainer(model, optimizer, x_shape, args.iterations, batch);
        case Loop::kIterator:
            return train_with_iterator(*model, *optimizer, x_shape, args.iterations, batch);
        case Loop::kManual:
            return train_manual(*model, *optimizer, x_shape, args.iterations, batch);
    }
}

}  // namespace rensa::bench
