// The random initializers: Normal, Uniform and the fan-scaled LeCun / Glorot / He families.
// They draw from the global Philox generator (rensa::seed) in the array's dtype.
#include <cmath>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/ops/random.h"
#include "links/initializers.h"
#include "links/initializers/check.h"

namespace rensa::initializers {
namespace {

void fill_normal(const Array& array, double stddev) {
    array.assign(ops::normal(array.shape(), 0.0, stddev, array.dtype(), array.device()));
}

// U(-bound, bound); a zero bound gives zeros (ops::uniform needs low < high).
void fill_uniform(const Array& array, double bound) {
    if (bound == 0.0) {
        array.fill(0.0);
        return;
    }
    array.assign(ops::uniform(array.shape(), -bound, bound, array.dtype(), array.device()));
}

double he_fan(const Shape& shape, const std::string& fan_option) {
    const auto [fan_in, fan_out] = get_fans(shape);
    return fan_option == "fan_in" ? fan_in : fan_out;
}

void check_fan_option(const std::string& fan_option, std::string_view name) {
    RENSA_CHECK(fan_option == "fan_in" || fan_option == "fan_out", ValueError, name,
                ": fan_option must be 'fan_in' or 'fan_out', got '", fan_option, "'");
}

}  // namespace

Normal::Normal(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}
void Normal::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "Normal");
    fill_normal(array, scale_);
}

Uniform::Uniform(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}
void Uniform::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "Uniform");
    fill_uniform(array, scale_);
}

LeCunNormal::LeCunNormal(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}
void LeCunNormal::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "LeCunNormal");
    const double fan_in = get_fans(array.shape()).first;
    fill_normal(array, scale_ * std::sqrt(1.0 / fan_in));
}

LeCunUniform::LeCunUniform(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}
void LeCunUniform::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "LeCunUniform");
    const double fan_in = get_fans(array.shape()).first;
    fill_uniform(array, scale_ * std::sqrt(3.0 / fan_in));
}

GlorotNormal::GlorotNormal(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}
void GlorotNormal::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "GlorotNormal");
    const auto [fan_in, fan_out] = get_fans(array.shape());
    fill_normal(array, scale_ * std::sqrt(2.0 / (fan_in + fan_out)));
}

GlorotUniform::GlorotUniform(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}
void GlorotUniform::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "GlorotUniform");
    const auto [fan_in, fan_out] = get_fans(array.shape());
    fill_uniform(array, scale_ * std::sqrt(6.0 / (fan_in + fan_out)));
}

HeNormal::HeNormal(double scale, std::optional<Dtype> dtype, std::string fan_option)
    : Initializer(dtype), scale_{scale}, fan_option_{std::move(fan_option)} {
    check_fan_option(fan_option_, "HeNormal");
}
void HeNormal::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "HeNormal");
    fill_normal(array, scale_ * std::sqrt(2.0 / he_fan(array.shape(), fan_option_)));
}

HeUniform::HeUniform(double scale, std::optional<Dtype> dtype, std::string fan_option)
    : Initializer(dtype), scale_{scale}, fan_option_{std::move(fan_option)} {
    check_fan_option(fan_option_, "HeUniform");
}
void HeUniform::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "HeUniform");
    fill_uniform(array, scale_ * std::sqrt(6.0 / he_fan(array.shape(), fan_option_)));
}

}  // namespace rensa::initializers
