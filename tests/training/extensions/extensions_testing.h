#pragma once
// Helpers of the extension tests (PlotReport, DumpGraph, the shifts, observe_value,
// MicroAverage, ParameterStatistics): a temporary folder, an updater whose counters and
// reports the test chooses, and a tiny Classifier trained by a StandardUpdater.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
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
#include "training/trainer.h"
#include "training/updater.h"
#include "training/updaters/standard_updater.h"

namespace rensa::testing::ext {

// A unique folder under the system's temporary folder, removed with its contents.
class TempDir {
public:
    explicit TempDir(const std::string& name)
        : path_{std::filesystem::temp_directory_path() /
                ("rensa_extensions_" + std::to_string(::getpid()) + "_" + name)} {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string str() const { return path_.string(); }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

// A 0-d float64 array.
inline Array scalar(double value) { return ops::full(Shape{}, value, Dtype::kFloat64); }

// An updater without data: update() counts an iteration and reports report_fn(iteration)
// (1-based); every `per_epoch` iterations make an epoch.
class FakeUpdater : public training::Updater {
public:
    using ReportFn = std::function<Observation(int64_t iteration)>;
    explicit FakeUpdater(std::map<std::string, std::shared_ptr<optimizers::Optimizer>> optimizers = {},
                         int64_t per_epoch = 4, ReportFn report_fn = nullptr)
        : optimizers_{std::move(optimizers)}, per_epoch_{per_epoch}, report_fn_{std::move(report_fn)} {}

    optimizers::Optimizer& get_optimizer(const std::string& name) override {
        const auto found = optimizers_.find(name);
        RENSA_CHECK(found != optimizers_.end(), KeyError, "FakeUpdater: no optimizer '", name, "'");
        return *found->second;
    }
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> get_all_optimizers() override { return optimizers_; }
    training::Iterator& get_iterator(const std::string& name) override {
        RENSA_THROW(KeyError, "FakeUpdater: no iterator '", name, "'");
    }
    void update() override {
        ++iteration_;
        if (report_fn_) report(report_fn_(iteration_));
    }
    int64_t iteration() const override { return iteration_; }
    int64_t epoch() const override { return iteration_ / per_epoch_; }
    double epoch_detail() const override { return static_cast<double>(iteration_) / static_cast<double>(per_epoch_); }
    std::optional<double> previous_epoch_detail() const override {
        if (iteration_ == 0) return std::nullopt;
        return static_cast<double>(iteration_ - 1) / static_cast<double>(per_epoch_);
    }
    bool is_new_epoch() const override { return iteration_ > 0 && iteration_ % per_epoch_ == 0; }
    void serialize(const serializers::Serializer& serializer) override { serializer("iteration", iteration_); }

private:
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> optimizers_;
    int64_t per_epoch_;
    ReportFn report_fn_;
    int64_t iteration_ = 0;
};

// An SGD (lr 0.1) over a Linear(2, 1) with known W = [[1, 2]] and b = [0]: an optimizer
// with a target, for the updater's "main".
inline std::shared_ptr<optimizers::SGD> tiny_sgd(double lr = 0.1) {
    auto link = std::make_shared<links::Linear>(2, 1);
    link->param("W").array().assign(make_array({1.0, 2.0}, Shape{1, 2}, Dtype::kFloat32));
    link->param("b").array().fill(0.0);
    auto optimizer = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = lr});
    optimizer->setup(link);
    return optimizer;
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

// A Classifier over Linear(3, 2) trained with SGD on tiny_dataset(n).
struct TinySetup {
    std::shared_ptr<links::Classifier> model;
    std::shared_ptr<optimizers::SGD> optimizer;
    std::shared_ptr<training::updaters::StandardUpdater> updater;
};

inline TinySetup tiny_setup(int64_t n = 16, int64_t batch_size = 4) {
    rensa::seed(0);
    TinySetup s;
    s.model = std::make_shared<links::Classifier>(std::make_shared<links::Linear>(3, 2));
    s.optimizer = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.1});
    s.optimizer->setup(s.model);
    auto iterator = std::make_shared<training::iterators::SerialIterator>(tiny_dataset(n), batch_size);
    s.updater = std::make_shared<training::updaters::StandardUpdater>(iterator, s.optimizer);
    return s;
}

}  // namespace rensa::testing::ext

namespace rensa::testing::ext {

// Copies the trainer's observation at each call (a reader: it runs after the writers and
// editors of the same iteration), keyed by iteration.
class ObservationRecorder : public training::Extension {
public:
    void operator()(training::Trainer& trainer) override {
        std::map<std::string, double> values;
        for (const auto& [key, value] : trainer.observation) {
            if (value.size() == 1) values[key] = value.to_vector<double>()[0];
        }
        seen[trainer.updater().iteration()] = std::move(values);
    }
    std::string default_name() const override { return "recorder"; }

    std::map<int64_t, std::map<std::string, double>> seen;
};

}  // namespace rensa::testing::ext
