#pragma once
// A data-free updater for the trigger tests: iteration i (1-based) reports values(i)
// under the current reporter, and `per_epoch` iterations make an epoch.

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/reporter.h"
#include "training/updater.h"

namespace rensa::testing {

class ScriptedUpdater final : public training::Updater {
public:
    using Values = std::function<std::map<std::string, double>(int64_t iteration)>;
    explicit ScriptedUpdater(int64_t per_epoch, Values values = nullptr)
        : per_epoch_{per_epoch}, values_{std::move(values)} {}

    optimizers::Optimizer& get_optimizer(const std::string& name) override {
        RENSA_THROW(KeyError, "ScriptedUpdater: no optimizer '", name, "'");
    }
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> get_all_optimizers() override { return {}; }
    training::Iterator& get_iterator(const std::string& name) override {
        RENSA_THROW(KeyError, "ScriptedUpdater: no iterator '", name, "'");
    }
    void update() override {
        ++iteration_;
        if (!values_) return;
        Observation observation;
        for (const auto& [key, v] : values_(iteration_)) observation[key] = Array::from_vector<double>({v}, Shape{});
        report(observation);
    }
    int64_t iteration() const override { return iteration_; }
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
    Values values_;
    int64_t iteration_ = 0;
};

}  // namespace rensa::testing
