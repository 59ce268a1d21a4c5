#include "training/extensions/lr_shifts.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "training/detail/names.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {}  // namespace

// --- Shift ---

Shift::Shift(std::string attr, ShiftOptions options)
    : attr_{std::move(attr)}, optimizer_{std::move(options.optimizer)}, init_{options.init}, target_{options.target} {}

// The ratio form works for negative values too.
double Shift::clip_to_target(double value, bool growing) const {
    if (!target_) return value;
    const double ratio = value / *target_;
    if (growing ? ratio > 1 : ratio < 1) return *target_;
    return value;
}

optimizers::Optimizer& Shift::get_optimizer(Trainer& trainer) const {
    optimizers::Optimizer& optimizer = optimizer_ ? *optimizer_ : trainer.updater().get_optimizer("main");
    RENSA_CHECK(optimizer.hyperparam().has(attr_), KeyError, default_name(), ": the optimizer has no hyperparameter '",
                attr_, "' (it has: ", training::detail::quoted_names(optimizer.hyperparam().get_all()), ")");
    return optimizer;
}

void Shift::update_value(optimizers::Optimizer& optimizer, double value) {
    optimizer.hyperparam().set(attr_, value);
    last_value_ = value;
}

void Shift::initialize(Trainer& trainer) {
    optimizers::Optimizer& optimizer = get_optimizer(trainer);
    if (!init_) init_ = optimizer.hyperparam().get(attr_);
    update_value(optimizer, initial_value());
}

void Shift::operator()(Trainer& trainer) {
    optimizers::Optimizer& optimizer = get_optimizer(trainer);
    if (!init_) init_ = optimizer.hyperparam().get(attr_);  // called without initialize()
    ++t_;
    update_value(optimizer, compute_value(t_));
}

void Shift::serialize(const serializers::Serializer& serializer) {
    serializer("_t", t_);
    if (!serializes_last_value()) return;
    if (serializer.is_loading()) {
        // A stored None (no value set yet) leaves the array undefined.
        serializer("_last_value", Array{}, [this](const Array& value) {
            last_value_ = value.defined() ? std::optional<double>{value.item<double>()} : std::nullopt;
        });
    } else if (last_value_) {
        double value = *last_value_;
        serializer("_last_value", value);
    } else {
        serializer("_last_value", Array{}, [](const Array&) {});  // Chainer's None
    }
}

// --- ExponentialShift ---

ExponentialShift::ExponentialShift(std::string attr, double rate, ShiftOptions options)
    : Shift{std::move(attr), std::move(options)}, rate_{rate} {
    RENSA_CHECK(rate >= 0, ValueError, "ExponentialShift: rate=", rate, " is negative (not supported)");
}

double ExponentialShift::compute_value(int64_t t) const {
    return clip_to_target(*init_ * std::pow(rate_, static_cast<double>(t)), rate_ > 1);
}

// --- LinearShift ---

LinearShift::LinearShift(std::string attr, std::pair<double, double> value_range,
                         std::pair<int64_t, int64_t> time_range, std::shared_ptr<optimizers::Optimizer> optimizer)
    : Shift{std::move(attr), {.optimizer = std::move(optimizer)}}, value_range_{value_range}, time_range_{time_range} {
    RENSA_CHECK(time_range.first < time_range.second, ValueError, "LinearShift: time_range=(", time_range.first, ", ",
                time_range.second, ") must be increasing");
}

double LinearShift::compute_value(int64_t t) const {
    const auto [t1, t2] = time_range_;
    const auto [v1, v2] = value_range_;
    if (t <= t1) return v1;
    if (t >= t2) return v2;
    const double rate = static_cast<double>(t - t1) / static_cast<double>(t2 - t1);
    return v1 + rate * (v2 - v1);
}

// --- MultistepShift ---

MultistepShift::MultistepShift(std::string attr, std::optional<double> init, double gamma,
                               std::vector<int64_t> step_value, std::shared_ptr<optimizers::Optimizer> optimizer)
    : Shift{std::move(attr), {.init = init, .optimizer = std::move(optimizer)}},
      gamma_{gamma},
      step_value_{std::move(step_value)} {
    for (size_t i = 1; i < step_value_.size(); ++i) {
        RENSA_CHECK(step_value_[i - 1] < step_value_[i], ValueError, "MultistepShift: step_value must be increasing (",
                    step_value_[i - 1], " is followed by ", step_value_[i], ")");
    }
}

double MultistepShift::compute_value(int64_t t) const {
    // Chainer moves one step per call once t reaches the next step value; with increasing
    // step values that is the number of step values <= t.
    const auto steps = std::upper_bound(step_value_.begin(), step_value_.end(), t) - step_value_.begin();
    return *init_ * std::pow(gamma_, static_cast<double>(steps));
}

// --- StepShift ---

StepShift::StepShift(std::string attr, double gamma, int64_t step, ShiftOptions options)
    : Shift{std::move(attr), std::move(options)}, gamma_{gamma}, step_{step} {
    RENSA_CHECK(step >= 1, ValueError, "StepShift: step=", step, " must be at least 1");
}

double StepShift::compute_value(int64_t t) const {
    return clip_to_target(*init_ * std::pow(gamma_, static_cast<double>(t / step_)), gamma_ > 1);
}

// --- PolynomialShift ---

PolynomialShift::PolynomialShift(std::string attr, double rate, int64_t max_count, ShiftOptions options)
    : Shift{std::move(attr), std::move(options)}, rate_{rate}, max_count_{max_count} {
    RENSA_CHECK(max_count >= 1, ValueError, "PolynomialShift: max_count=", max_count, " must be at least 1");
}

double PolynomialShift::compute_value(int64_t t) const {
    const double decay = std::max(1.0 - static_cast<double>(t) / static_cast<double>(max_count_), 0.0);
    const double value = *init_ * std::pow(decay, rate_);
    if (!target_) return value;
    // Chainer compares target / value here (the value shrinks towards 0 for rate > 0).
    const double ratio = *target_ / value;
    return (rate_ > 0 ? ratio > 1 : ratio < 1) ? *target_ : value;
}

// --- WarmupShift ---

WarmupShift::WarmupShift(std::string attr, std::optional<double> warmup_start, int64_t warmup_iter, double init,
                         std::shared_ptr<optimizers::Optimizer> optimizer)
    : Shift{std::move(attr), {.init = init, .optimizer = std::move(optimizer)}},
      warmup_start_{warmup_start},
      warmup_iter_{warmup_iter} {
    RENSA_CHECK(warmup_iter >= 1, ValueError, "WarmupShift: warmup_iter=", warmup_iter, " must be at least 1");
}

void WarmupShift::initialize(Trainer& trainer) {
    optimizers::Optimizer& optimizer = get_optimizer(trainer);
    if (!warmup_start_) warmup_start_ = optimizer.hyperparam().get(attr_);
    // A resume (t > 0) recomputes the value of call t (Chainer would reset to warmup_start).
    update_value(optimizer, t_ > 0 ? compute_value(t_) : *warmup_start_);
}

void WarmupShift::operator()(Trainer& trainer) {
    ++t_;
    if (t_ > warmup_iter_) return;  // after the warm-up the value is left alone, as Chainer
    optimizers::Optimizer& optimizer = get_optimizer(trainer);
    if (!warmup_start_) warmup_start_ = optimizer.hyperparam().get(attr_);  // called without initialize()
    update_value(optimizer, compute_value(t_));
}

double WarmupShift::compute_value(int64_t t) const {
    const int64_t n = std::min(t, warmup_iter_);
    return (static_cast<double>(n) * *init_ + static_cast<double>(warmup_iter_ - n) * *warmup_start_) /
           static_cast<double>(warmup_iter_);
}

// --- InverseShift ---

InverseShift::InverseShift(std::string attr, double gamma, double power, ShiftOptions options)
    : Shift{std::move(attr), std::move(options)}, gamma_{gamma}, power_{power} {
    RENSA_CHECK(gamma >= 0, ValueError, "InverseShift: gamma=", gamma, " is negative (not supported)");
}

double InverseShift::compute_value(int64_t t) const {
    const double value = *init_ * std::pow(1.0 + gamma_ * static_cast<double>(t), -power_);
    return clip_to_target(value, power_ < 0);
}

}  // namespace rensa::training::extensions
