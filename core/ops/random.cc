#include "core/ops/random.h"

#include <cmath>
#include <limits>

#include "core/backend.h"
#include "core/error.h"
#include "core/kernels.h"
#include "core/random.h"

namespace rensa::ops {
namespace {

// Allocates a contiguous output, reserves one counter per element and lets the device fill it.
Array fill_random(RandomDistribution distribution, const Shape& shape, double a, double b, Dtype dtype, Device device) {
    Array out = Array::empty(shape, dtype, device);
    const auto [seed, offset] = global_generator().reserve(static_cast<uint64_t>(out.size()));
    if (out.size() > 0) {
        global_context().kernels(device).random(
            {.distribution = distribution, .seed = seed, .offset = offset, .a = a, .b = b, .out = out});
    }
    return out;
}

void check_float_dtype(Dtype dtype, const char* routine) {
    RENSA_CHECK(is_float(dtype), DtypeError, routine, ": dtype must be a float dtype (float16, bfloat16, float32, ",
                "float64), got ", dtype);
}

struct IntRange {
    int64_t min, max;
};

// The values an integral dtype holds (randint's bounds must fit).
IntRange integral_range(Dtype dtype) {
    switch (dtype) {
        case Dtype::kInt8:
            return {std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max()};
        case Dtype::kUInt8:
            return {0, std::numeric_limits<uint8_t>::max()};
        case Dtype::kInt32:
            return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
        case Dtype::kInt64:
        case Dtype::kBool:
        case Dtype::kFloat16:
        case Dtype::kBFloat16:
        case Dtype::kFloat32:
        case Dtype::kFloat64:
            break;
    }
    return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
}

// RandomArgs carries bounds as doubles: an int64 bound must survive the round trip.
bool exact_as_double(int64_t v) {
    const auto d = static_cast<double>(v);
    return d < 9223372036854775808.0 && static_cast<int64_t>(d) == v;
}

}  // namespace

Array uniform(const Shape& shape, double low, double high, Dtype dtype, Device device) {
    check_float_dtype(dtype, "uniform");
    RENSA_CHECK(std::isfinite(low) && std::isfinite(high) && high > low, ValueError,
                "uniform: need finite low < high, got low=", low, ", high=", high);
    return fill_random(RandomDistribution::kUniform, shape, low, high, dtype, device);
}

Array normal(const Shape& shape, double mean, double stddev, Dtype dtype, Device device) {
    check_float_dtype(dtype, "normal");
    RENSA_CHECK(std::isfinite(mean), ValueError, "normal: mean must be finite, got ", mean);
    RENSA_CHECK(std::isfinite(stddev) && stddev >= 0.0, ValueError,
                "normal: stddev must be finite and non-negative, got ", stddev);
    return fill_random(RandomDistribution::kNormal, shape, mean, stddev, dtype, device);
}

Array bernoulli(const Shape& shape, double p, Dtype dtype, Device device) {
    RENSA_CHECK(p >= 0.0 && p <= 1.0, ValueError, "bernoulli: p must be in [0, 1], got ", p);
    return fill_random(RandomDistribution::kBernoulli, shape, p, 0.0, dtype, device);
}

Array randint(int64_t low, int64_t high, const Shape& shape, Dtype dtype, Device device) {
    RENSA_CHECK(is_integral(dtype), DtypeError, "randint: dtype must be an integer dtype (int8, uint8, int32, int64), ",
                "got ", dtype);
    RENSA_CHECK(high > low, ValueError, "randint: need low < high, got low=", low, ", high=", high);
    const IntRange range = integral_range(dtype);
    RENSA_CHECK(low >= range.min && high - 1 <= range.max, ValueError, "randint: [", low, ", ", high,
                ") is out of bounds for ", dtype);
    RENSA_CHECK(exact_as_double(low) && exact_as_double(high), ValueError, "randint: bounds beyond 2^53 must be ",
                "exactly representable as float64, got low=", low, ", high=", high);
    return fill_random(RandomDistribution::kRandint, shape, static_cast<double>(low), static_cast<double>(high), dtype,
                       device);
}

// Sorting one uniform float64 key per element gives a uniformly random order; the stable
// sort makes the (vanishingly rare) equal keys keep a deterministic order on every device.
Array permutation(int64_t n, Device device) {
    RENSA_CHECK(n >= 0, ValueError, "permutation: n must be non-negative, got ", n);
    const Array keys = fill_random(RandomDistribution::kUniform, {n}, 0.0, 1.0, Dtype::kFloat64, device);
    Array indices = Array::empty({n}, Dtype::kInt64, device);
    if (n > 0) global_context().kernels(device).sort({.x = keys, .axis = 0, .values = {}, .indices = indices});
    return indices;
}

}  // namespace rensa::ops
