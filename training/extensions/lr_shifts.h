#pragma once
// Chainer's hyperparameter schedules: ExponentialShift, LinearShift, MultistepShift,
// StepShift, PolynomialShift, WarmupShift and InverseShift. Each call (default trigger
// {1, "iteration"}) counts t and sets optimizer.hyperparam().set(attr, value) (See Note
// [Hyperparameter fallback] in optimizers/optimizer.h); initialize() sets the starting
// value, or on a resume the value the snapshot recorded.
//
//   trainer.extend(std::make_shared<extensions::ExponentialShift>("lr", 0.5), {.trigger = {1, "epoch"}});
//   trainer.extend(std::make_shared<extensions::LinearShift>("alpha", std::pair{1e-3, 1e-4}, std::pair{0, 1000}));

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optimizers/optimizer.h"
#include "training/extension.h"

namespace rensa::training::extensions {

// Chainer's optional keyword arguments of the shifts.
struct ShiftOptions {
    // The starting value; nullopt: the optimizer's value of `attr` at initialize().
    std::optional<double> init = std::nullopt;
    // The shift stops once the value passes it (in the direction the schedule moves).
    std::optional<double> target = std::nullopt;
    // null: the trainer's updater.get_optimizer("main").
    std::shared_ptr<optimizers::Optimizer> optimizer = nullptr;
};

// What the shifts share: the optimizer lookup, the counter t and the last value set.
class Shift : public Extension {
public:
    // Sets the value for the call count t (0 before the first call) from the snapshot's
    // last value when there is one, else the schedule's starting value. KeyError when the
    // optimizer has no hyperparameter `attr` (it lists those it has).
    void initialize(Trainer& trainer) override;
    // t += 1, then sets compute_value(t).
    void operator()(Trainer& trainer) override;
    // "_t" and "_last_value" (None before the first value) as Chainer.
    void serialize(const serializers::Serializer& serializer) override;

    int64_t t() const { return t_; }
    // The value last set (nullopt before initialize()).
    std::optional<double> last_value() const { return last_value_; }

protected:
    // Takes init, target and optimizer from `options` (a shift without a target leaves it nullopt).
    Shift(std::string attr, ShiftOptions options);
    // The schedule's value after `t` calls (t >= 1); init_ is set by then.
    virtual double compute_value(int64_t t) const = 0;
    // The value initialize() sets on a fresh start (Chainer: init, LinearShift: value at t=0).
    virtual double start_value() const { return *init_; }
    // The value initialize() sets: the snapshot's last value on a resume, else start_value().
    virtual double initial_value() const { return last_value_ ? *last_value_ : start_value(); }
    // Whether "_last_value" is saved (MultistepShift and WarmupShift save only "_t").
    virtual bool serializes_last_value() const { return true; }
    optimizers::Optimizer& get_optimizer(Trainer& trainer) const;
    void update_value(optimizers::Optimizer& optimizer, double value);
    // Chainer's target clipping: `target_` once `value` passed it; `growing` says which way
    // the schedule moves.
    double clip_to_target(double value, bool growing) const;

    std::string attr_;
    std::shared_ptr<optimizers::Optimizer> optimizer_;
    std::optional<double> init_;
    std::optional<double> target_;
    int64_t t_ = 0;
    std::optional<double> last_value_;
};

// value = init * rate^t (Chainer's ExponentialShift); ValueError for rate < 0.
class ExponentialShift : public Shift {
public:
    ExponentialShift(std::string attr, double rate, ShiftOptions options = {});
    std::string default_name() const override { return "ExponentialShift"; }

protected:
    double compute_value(int64_t t) const override;

private:
    double rate_;
};

// Keeps value_range.first up to call time_range.first, moves linearly to
// value_range.second by call time_range.second, then keeps it (Chainer's LinearShift).
class LinearShift : public Shift {
public:
    // ValueError when time_range.second <= time_range.first.
    LinearShift(std::string attr, std::pair<double, double> value_range, std::pair<int64_t, int64_t> time_range,
                std::shared_ptr<optimizers::Optimizer> optimizer = nullptr);
    std::string default_name() const override { return "LinearShift"; }

protected:
    double compute_value(int64_t t) const override;
    double start_value() const override { return compute_value(0); }

private:
    std::pair<double, double> value_range_;
    std::pair<int64_t, int64_t> time_range_;
};

// value = init * gamma^k where k counts the step values reached by t (Chainer's
// MultistepShift). Saves only "_t"; a resume recomputes the value from t.
class MultistepShift : public Shift {
public:
    // init nullopt: the optimizer's value. ValueError unless step_value is increasing.
    MultistepShift(std::string attr, std::optional<double> init, double gamma, std::vector<int64_t> step_value,
                   std::shared_ptr<optimizers::Optimizer> optimizer = nullptr);
    std::string default_name() const override { return "MultistepShift"; }

protected:
    double compute_value(int64_t t) const override;
    double initial_value() const override { return t_ > 0 ? compute_value(t_) : *init_; }
    bool serializes_last_value() const override { return false; }

private:
    double gamma_;
    std::vector<int64_t> step_value_;
};

// value = init * gamma^floor(t / step) (Chainer's StepShift); ValueError for step < 1.
class StepShift : public Shift {
public:
    StepShift(std::string attr, double gamma, int64_t step, ShiftOptions options = {});
    std::string default_name() const override { return "StepShift"; }

protected:
    double compute_value(int64_t t) const override;

private:
    double gamma_;
    int64_t step_;
};

// value = init * max(1 - t / max_count, 0)^rate (Chainer's PolynomialShift);
// ValueError for max_count < 1.
class PolynomialShift : public Shift {
public:
    PolynomialShift(std::string attr, double rate, int64_t max_count, ShiftOptions options = {});
    std::string default_name() const override { return "PolynomialShift"; }

protected:
    double compute_value(int64_t t) const override;

private:
    double rate_;
    int64_t max_count_;
};

// Moves evenly from warmup_start to init during the first warmup_iter calls, then leaves
// the value alone (Chainer's WarmupShift). warmup_start nullopt: the optimizer's value.
// Saves only "_t"; a resume recomputes the value from t.
class WarmupShift : public Shift {
public:
    // ValueError for warmup_iter < 1.
    WarmupShift(std::string attr, std::optional<double> warmup_start, int64_t warmup_iter, double init,
                std::shared_ptr<optimizers::Optimizer> optimizer = nullptr);
    std::string default_name() const override { return "WarmupShift"; }
    void initialize(Trainer& trainer) override;
    void operator()(Trainer& trainer) override;

protected:
    double compute_value(int64_t t) const override;
    bool serializes_last_value() const override { return false; }

private:
    std::optional<double> warmup_start_;
    int64_t warmup_iter_;
};

// value = init * (1 + gamma * t)^(-power) (Chainer's InverseShift, Caffe's "inv");
// ValueError for gamma < 0.
class InverseShift : public Shift {
public:
    InverseShift(std::string attr, double gamma, double power, ShiftOptions options = {});
    std::string default_name() const override { return "InverseShift"; }

protected:
    double compute_value(int64_t t) const override;

private:
    double gamma_;
    double power_;
};

}  // namespace rensa::training::extensions
