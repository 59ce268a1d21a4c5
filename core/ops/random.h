#pragma once
// Random arrays from the process-wide Philox generator (core/random.h): one seed gives
// the same numbers on every device and with any number of threads.

#include "core/array.h"

namespace rensa::ops {

[[nodiscard]] Array uniform(const Shape& shape, double low = 0.0, double high = 1.0, Dtype dtype = Dtype::kFloat32,
                            Device device = default_device());
[[nodiscard]] Array normal(const Shape& shape, double mean = 0.0, double stddev = 1.0, Dtype dtype = Dtype::kFloat32,
                           Device device = default_device());
// 1 (true) with probability p, else 0.
[[nodiscard]] Array bernoulli(const Shape& shape, double p, Dtype dtype = Dtype::kBool,
                              Device device = default_device());
// Integers in [low, high).
[[nodiscard]] Array randint(int64_t low, int64_t high, const Shape& shape, Dtype dtype = Dtype::kInt64,
                            Device device = default_device());
// A random permutation of 0..n-1 (int64).
[[nodiscard]] Array permutation(int64_t n, Device device = default_device());

}  // namespace rensa::ops
