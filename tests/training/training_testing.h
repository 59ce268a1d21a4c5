#pragma once
// Helpers shared by the training test families: a temporary folder, a file reader, 0-d
// arrays, an updater without data whose counters and reports the test chooses, and a tiny
// Classifier trained by a StandardUpdater on a tiny in-memory data set.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "core/reporter.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/sgd.h"
#include "tests/testing/testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/iterators/serial_iterator.h"
#include "training/updater.h"
#include "training/updaters/standard_updater.h"

namespace rensa::testing {

// A unique folder under the system's temporary folder (pid + name), removed with its contents.
class TempDir {
public:
    explicit TempDir(const std::string& name)
        : path_{std::filesystem::temp_directory_path() /
                ("rensa_training_" + std::to_string(::getpid()) + "_" + name)} {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::string str() const { return path_.string(); }
    // The path of the entry `name` in the folder.
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    // The names of the entries in the folder, sorted.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator{path_}) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    std::filesystem::path path_;
};

// The whole content of the file at `path` (empty when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

// A 0-d float64 array.
inline Array scalar(double value) { return ops::full(Shape{}, value, Dtype::kFloat64); }

// An updater without data: update() counts an iteration and reports report_fn(iteration)
// (1-based) when given; every `per_epoch` iterations make an epoch. Serializes "iteration"
// like StandardUpdater.
class FakeUpdater : public training::Updater {
public:
    using ReportFn = std::function<Observation(int64_t iteration)>;
    using Optimizers = std::map<std::string, std::shared_ptr<optimizers::Optimizer>>;
    explicit FakeUpdater(int64_t per_epoch, ReportFn report_fn = nullptr, Optimizers optimizers = {})
        : per_epoch_{per_epoch}, report_fn_{std::move(report_fn)}, optimizers_{std::move(optimizers)} {}
    // The same with the optimizers first (4 iterations per epoch unless given).
    explicit FakeUpdater(Optimizers optimizers, int64_t per_epoch = 4, ReportFn report_fn = nullptr)
        : FakeUpdater(per_epoch, std::move(report_fn), std::move(optimizers)) {}

    optimizers::Optimizer& get_optimizer(const std::string& name) override {
        const auto found = optimizers_.find(name);
        RENSA_CHECK(found != optimizers_.end(), KeyError, "FakeUpdater: no optimizer '", name, "'");
        return *found->second;
    }
    Optimizers get_all_optimizers() override { return optimizers_; }
    training::Iterator& get_iterator(const std::string& name) override {
        RENSA_THROW(KeyError, "FakeUpdater: no iterator '", name, "'");
    }
    void update() override {
        ++iteration_;
        if (report_fn_) report(report_fn_(iteration_));
    }
    int64_t iteration() const override { return iteration_; }
    void set_iteration(int64_t iteration) { iteration_ = iteration; }  // as a resumed run
    int64_t epoch() const override { return iteration_ / per_epoch_; }
    double epoch_detail() const override { return static_cast<double>(iteration_) / static_cast<double>(per_epoch_); }
    std::optional<double> previous_epoch_detail() const override {
        if (iteration_ == 0) return std::nullopt;
        return static_cast<double>(iteration_ - 1) / static_cast<double>(per_epoch_);
    }
    bool is_new_epoch() const override { return iteration_ > 0 && iteration_ % per_epoch_ == 0; }
    void serialize(const serializers::Serializer& serializer) override { serializer("iteration", iteration_); }

private:
    int64_t per_epoch_;
    ReportFn report_fn_;
    Optimizers optimizers_;
    int64_t iteration_ = 0;
};

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

// A Classifier over Linear(3, 2), SGD (lr 0.1), and a SerialIterator over tiny_dataset(n).
struct TinySetup {
    std::shared_ptr<links::Classifier> model;
    std::shared_ptr<optimizers::SGD> optimizer;
    std::shared_ptr<training::iterators::SerialIterator> iterator;
    std::shared_ptr<training::updaters::StandardUpdater> updater;
};

// Seeds the global generator with `seed`, then builds the model, optimizer and updater.
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

}  // namespace rensa::testing
