#pragma once
// Helpers of the reporting tests: a temporary folder, an updater whose reports and
// counters the test chooses, and a tiny classification data set.

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/reporter.h"
#include "training/iterators/serial_iterator.h"
#include "training/updater.h"

namespace rensa::testing {

// A unique folder under the system's temporary folder, removed with its contents.
class TempDir {
public:
    explicit TempDir(const std::string& name)
        : path_{std::filesystem::temp_directory_path() /
                ("rensa_reporting_" + std::to_string(::getpid()) + "_" + name)} {
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

private:
    std::filesystem::path path_;
};

// An updater without data: iteration i (1-based) reports report(i), and every
// `iterations_per_epoch` iterations make an epoch.
class FakeUpdater : public training::Updater {
public:
    using ReportFn = std::function<Observation(int64_t iteration)>;
    FakeUpdater(int64_t iterations_per_epoch, ReportFn report_fn,
                std::map<std::string, std::shared_ptr<optimizers::Optimizer>> optimizers = {})
        : per_epoch_{iterations_per_epoch}, report_fn_{std::move(report_fn)}, optimizers_{std::move(optimizers)} {}

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
    void set_iteration(int64_t iteration) { iteration_ = iteration; }  // as a resumed run
    int64_t epoch() const override { return iteration_ / per_epoch_; }
    double epoch_detail() const override { return static_cast<double>(iteration_) / per_epoch_; }
    std::optional<double> previous_epoch_detail() const override {
        if (iteration_ == 0) return std::nullopt;
        return static_cast<double>(iteration_ - 1) / per_epoch_;
    }
    bool is_new_epoch() const override { return iteration_ > 0 && iteration_ % per_epoch_ == 0; }
    void serialize(const serializers::Serializer& serializer) override { serializer("iteration", iteration_); }

private:
    int64_t per_epoch_;
    ReportFn report_fn_;
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> optimizers_;
    int64_t iteration_ = 0;
};

// A 0-d float64 array.
inline Array scalar(double value) { return ops::full(Shape{}, value, Dtype::kFloat64); }

}  // namespace rensa::testing
