#pragma once
// Helpers of the extension tests (PlotReport, DumpGraph, the shifts, observe_value,
// MicroAverage, ParameterStatistics), beyond the shared ones of training_testing.h: an SGD
// with a known target and an extension that records the observations.

#include <map>
#include <memory>
#include <string>

#include "links/connection/linear.h"
#include "optimizers/sgd.h"
#include "tests/testing/testing.h"
#include "tests/training/training_testing.h"
#include "training/trainer.h"

namespace rensa::testing::ext {

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
