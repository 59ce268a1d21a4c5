#pragma once
// A data-free updater for the trigger tests: iteration i (1-based) reports values(i)
// (as 0-d float64 arrays) under the current reporter, and `per_epoch` iterations make an epoch.

#include <functional>
#include <map>
#include <string>

#include "tests/training/training_testing.h"

namespace rensa::testing {

class ScriptedUpdater final : public FakeUpdater {
public:
    using Values = std::function<std::map<std::string, double>(int64_t iteration)>;
    explicit ScriptedUpdater(int64_t per_epoch, Values values = nullptr)
        : FakeUpdater{per_epoch, observations(std::move(values))} {}

private:
    // The report function of FakeUpdater for `values` (none when values is empty).
    static ReportFn observations(Values values) {
        if (!values) return nullptr;
        return [values = std::move(values)](int64_t iteration) {
            Observation observation;
            for (const auto& [key, v] : values(iteration)) observation[key] = scalar(v);
            return observation;
        };
    }
};

}  // namespace rensa::testing
