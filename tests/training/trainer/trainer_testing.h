#pragma once
// Helpers of the trainer and trigger tests: a temporary folder, a tiny classifier on a
// tiny in-memory data set, and an extension that records when it runs.

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/random.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/sgd.h"
#include "tests/testing/testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/extension.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace rensa::testing {

// A unique folder under the system's temporary folder, removed with its contents.
class TrainerTempDir {
public:
    explicit TrainerTempDir(const std::string& name)
        : path_{std::filesystem::temp_directory_path() / ("rensa_trainer_" + std::to_string(::getpid()) + "_" + name)} {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TrainerTempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TrainerTempDir(const TrainerTempDir&) = delete;
    TrainerTempDir& operator=(const TrainerTempDir&) = delete;
    std::string str() const { return path_.string(); }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// A saving backend that records the full key of every saved entry.
class KeyRecorder final : public serializers::SerializerBackend {
public:
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array&) override { keys.insert(key); }
    void save_string(const std::string& key, const std::string&) override { keys.insert(key); }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return std::nullopt; }
    void defer(std::function<void()>) override {}
    std::set<std::string> keys;
};

// The keys `obj.serialize` saves.
template <class T>
std::set<std::string> saved_keys(T& obj) {
    auto backend = std::make_shared<KeyRecorder>();
    obj.serialize(serializers::Serializer{backend});
    return backend->keys;
}

// n examples of 3 features, class 1 when x0 + x1 - x2 > 0.
inline training::DatasetPtr tiny_dataset(int64_t n) {
    std::vector<double> xs, ts;
    for (int64_t i = 0; i < n; ++i) {
        const double a = static_cast<double>(i % 7) - 3.0, b = static_cast<double>((i * 3) % 5) - 2.0,
                     c = static_cast<double>((i * 2) % 3) - 1.0;
        xs.insert(xs.end(), {a, b, c});
        ts.push_back(a + b - c > 0 ? 1 : 0);
    }
    return std::make_shared<training::datasets::TupleDataset>(
        std::vector<Array>{make_array(xs, Shape{n, 3}, Dtype::kFloat32), make_array(ts, Shape{n}, Dtype::kInt32)});
}

// A Classifier over Linear(3, 2), SGD, and a SerialIterator over tiny_dataset(n).
struct TinySetup {
    std::shared_ptr<links::Classifier> model;
    std::shared_ptr<optimizers::SGD> optimizer;
    std::shared_ptr<training::iterators::SerialIterator> iterator;
    std::shared_ptr<training::updaters::StandardUpdater> updater;
};

inline TinySetup tiny_setup(int64_t n, int64_t batch_size, bool shuffle = false, uint64_t seed = 0,
                            training::updaters::StandardUpdaterOptions options = {}) {
    rensa::seed(seed);
    TinySetup s;
    s.model = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(3, 2));
    s.optimizer = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.1});
    s.optimizer->setup(s.model);
    s.iterator = std::make_shared<training::iterators::SerialIterator>(
        tiny_dataset(n), batch_size, training::iterators::SerialIteratorOptions{.shuffle = shuffle});
    s.updater = std::make_shared<training::updaters::StandardUpdater>(s.iterator, s.optimizer, std::move(options));
    return s;
}

// Records the iteration of each call (and of initialize/finalize/on_error as events).
class RecordingExtension : public training::Extension {
public:
    explicit RecordingExtension(std::string name, std::vector<std::string>* events = nullptr, int priority = 100)
        : name_{std::move(name)}, events_{events}, priority_{priority} {}
    void operator()(training::Trainer& trainer) override {
        calls.push_back(trainer.updater().iteration());
        log("call");
    }
    std::string default_name() const override { return name_; }
    int priority() const override { return priority_; }
    void initialize(training::Trainer&) override { log("initialize"); }
    void on_error(training::Trainer&, const std::exception& error) override {
        log(std::string("on_error:") + error.what());
    }
    void finalize() override { log("finalize"); }

    std::vector<int64_t> calls;

private:
    void log(const std::string& what) {
        if (events_ != nullptr) events_->push_back(name_ + ":" + what);
    }
    std::string name_;
    std::vector<std::string>* events_;
    int priority_;
};

// The iterations at which `trigger` fires over `iterations` updates of a tiny setup
// with n examples and the given batch size (the trigger runs as an extension's trigger).
inline std::vector<int64_t> firing_iterations(training::TriggerArg trigger, int64_t iterations, int64_t n,
                                              int64_t batch_size) {
    TinySetup s = tiny_setup(n, batch_size);
    const std::string out =
        (std::filesystem::temp_directory_path() / ("rensa_trainer_" + std::to_string(::getpid()) + "_firing")).string();
    training::Trainer trainer{s.updater, {iterations, "iteration"}, out};
    auto recorder = std::make_shared<RecordingExtension>("rec");
    trainer.extend(recorder, {.trigger = std::move(trigger)});
    trainer.run();
    std::error_code ignored;
    std::filesystem::remove_all(out, ignored);
    return recorder->calls;
}

}  // namespace rensa::testing
