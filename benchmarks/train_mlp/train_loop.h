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
// --dtype mixed_bf16 trains under bfloat16 mixed precision (see apply_dtype), and
// --epochs N trains N epochs, then adds the test set's accuracy to the JSON line.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <numeric>
#include <string>

#include <unistd.h>

#include "autograd/modes.h"
#include "benchmarks/train_mlp/bench_data.h"
#include "core/shape.h"
#include "functions/array.h"
#include "functions/evaluation.h"
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
    bool mixed_bf16 = false;  // --dtype mixed_bf16 (default float32)
    int64_t epochs = 0;       // > 0: train this many epochs, then measure the test accuracy
};

[[noreturn]] inline void usage_error(const std::string& what) {
    std::fprintf(stderr,
                 "%s\nusage: [iterations] [--loop trainer|iterator|manual] [--dtype float32|mixed_bf16] "
                 "[--epochs N]\n",
                 what.c_str());
    std::exit(2);
}

inline int64_t parse_count(const std::string& text, const char* what) {
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < 0)
        usage_error(std::string(what) + " must be a count >= 0, got '" + text + "'");
    return v;
}

inline LoopArgs parse_args(int argc, char** argv) {
    LoopArgs args;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--loop" && has_value) {
            const std::string l = argv[++i];
            if (l != "manual" && l != "iterator" && l != "trainer") usage_error("unknown --loop '" + l + "'");
            args.loop = l == "manual" ? Loop::kManual : l == "iterator" ? Loop::kIterator : Loop::kTrainer;
        } else if (a == "--dtype" && has_value) {
            const std::string d = argv[++i];
            if (d != "float32" && d != "mixed_bf16") usage_error("unknown --dtype '" + d + "'");
            args.mixed_bf16 = d == "mixed_bf16";
        } else if (a == "--epochs" && has_value) {
            args.epochs = parse_count(argv[++i], "--epochs");
        } else if (!a.empty() && a[0] != '-') {
            args.iterations = parse_count(a, "iterations");
        } else {
            usage_error("unknown argument '" + a + "'");
        }
    }
    return args;
}

// Note [mixed_bf16 in the training benchmarks]: the shared C++ form of mixed_bf16 is
// Config::dtype = bfloat16 with Config::mixed16 set, before the model is built, so that
// the links create bfloat16 parameters (normalisation links keep float32 ones). The
// thread's config() is copied from global_config() on its first read, so both are set.
// The data stays float32: the model casts its input to config().dtype and its logits
// back to float32 (mixed_input / mixed_output), as torch.autocast does around
// cross_entropy; the optimizer keeps float32 master copies (use_fp32_update).
inline void apply_dtype(const LoopArgs& args) {
    if (!args.mixed_bf16) return;
    for (Config* c : {&global_config(), &config()}) {
        c->dtype = Dtype::kBFloat16;
        c->mixed16 = true;
    }
}

inline Variable mixed_input(const Variable& x) {
    return config().mixed16 && x.dtype() != config().dtype ? functions::cast(x, config().dtype) : x;
}
inline Variable mixed_output(const Variable& y) {
    return y.dtype() != Dtype::kFloat32 ? functions::cast(y, Dtype::kFloat32) : y;
}

inline void print_result(int64_t iterations, int64_t batch, double seconds, double loss, double accuracy = -1.0) {
    std::printf(
        "{\"images_per_s\": %.1f, \"seconds\": %.3f, \"iterations\": %lld, \"last_loss\": %.4f, "
        "\"dtype\": \"%s\"",
        static_cast<double>(iterations * batch) / seconds, seconds, static_cast<long long>(iterations), loss,
        config().mixed16 ? "mixed_bf16" : "float32");
    if (accuracy >= 0) std::printf(", \"test_accuracy\": %.4f", accuracy);
    std::printf("}\n");
}

// The test set's accuracy (10,000 examples in batches of 100, train mode off, no graph).
inline double test_accuracy(links::Classifier& model, const Shape& x_shape) {
    const auto test_set = training::datasets::get_fashion_mnist({.ndim = static_cast<int>(x_shape.size())}).second;
    training::iterators::SerialIterator it(test_set, 100, {.repeat = false, .shuffle = false});
    NoBackpropMode no_graph;
    ConfigScope<bool> eval{&Config::train, false};
    double correct = 0;
    int64_t n = 0;
    while (auto batch = it.next()) {
        const training::Example b = training::concat_examples(*batch);
        const Variable y = (*model.predictor)(Variable(b[0], false));
        const int64_t m = b[1].shape()[0];
        correct += functions::accuracy(y, Variable(b[1], false)).item<double>() * static_cast<double>(m);
        n += m;
    }
    return correct / static_cast<double>(n);
}

struct Timed {
    int64_t iterations;
    double seconds;
};

inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Trainer + StandardUpdater; the trainer's output folder is a temporary one, removed after.
// (The optimizer holds the model since setup.)
inline Timed train_with_trainer(const std::shared_ptr<optimizers::Optimizer>& optimizer, const Shape& x_shape,
                                int64_t iterations_arg, int64_t batch) {
    const auto train_set = training::datasets::get_fashion_mnist({.ndim = static_cast<int>(x_shape.size())}).first;
    const int64_t iterations = iterations_arg > 0 ? iterations_arg : train_set->size() / batch;
    auto it = std::make_shared<training::iterators::SerialIterator>(train_set, batch);
    auto updater = std::make_shared<training::updaters::StandardUpdater>(it, optimizer);
    const auto out = std::filesystem::temp_directory_path() / ("rensa-bench-" + std::to_string(::getpid()));
    training::Trainer trainer(updater, {iterations, "iteration"}, out.string());
    const auto start = std::chrono::steady_clock::now();
    trainer.run();
    const double seconds = seconds_since(start);
    std::filesystem::remove_all(out);
    return {iterations, seconds};
}

// SerialIterator + concat_examples + optimizer.update, written out.
inline Timed train_with_iterator(links::Classifier& model, optimizers::Optimizer& optimizer, const Shape& x_shape,
                                 int64_t iterations_arg, int64_t batch) {
    const auto train_set = training::datasets::get_fashion_mnist({.ndim = static_cast<int>(x_shape.size())}).first;
    const int64_t iterations = iterations_arg > 0 ? iterations_arg : train_set->size() / batch;
    training::iterators::SerialIterator it(train_set, batch);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iterations; ++i) {
        const training::Example b = training::concat_examples(*it.next());
        optimizer.update([&] { return model(Variable(b[0], false), Variable(b[1], false)); });
    }
    return {iterations, seconds_since(start)};
}

// The hand-written loop over one float buffer.
inline Timed train_manual(links::Classifier& model, optimizers::Optimizer& optimizer, const Shape& x_shape,
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
    return {iterations, seconds_since(start)};
}

// Trains `model` with `optimizer` as args say (apply_dtype must have run before the model
// was built); x_shape: one example's shape ({784} or {1, 28, 28}). With args.epochs, trains
// that many epochs of the 60,000 examples and reports the test accuracy after.
inline void train(const std::shared_ptr<links::Classifier>& model,
                  const std::shared_ptr<optimizers::GradientMethod>& optimizer, const Shape& x_shape,
                  const LoopArgs& args) {
    const int64_t batch = 100;
    const int64_t iterations = args.epochs > 0 ? args.epochs * (60000 / batch) : args.iterations;
    model->compute_accuracy = false;
    optimizer->setup(model);
    if (args.mixed_bf16) optimizer->use_fp32_update();
    Timed timed{};
    switch (args.loop) {
        case Loop::kTrainer:
            timed = train_with_trainer(optimizer, x_shape, iterations, batch);
            break;
        case Loop::kIterator:
            timed = train_with_iterator(*model, *optimizer, x_shape, iterations, batch);
            break;
        case Loop::kManual:
            timed = train_manual(*model, *optimizer, x_shape, iterations, batch);
            break;
    }
    const double accuracy = args.epochs > 0 ? test_accuracy(*model, x_shape) : -1.0;
    print_result(timed.iterations, batch, timed.seconds, model->loss.item<double>(), accuracy);
}

}  // namespace rensa::bench
