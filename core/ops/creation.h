#pragma once
// Array creation routines (numpy's names). Every result is a new contiguous array.

#include <optional>

#include "core/array.h"

namespace rensa::ops {

[[nodiscard]] Array empty(const Shape& shape, Dtype dtype = Dtype::kFloat32, Device device = default_device());
[[nodiscard]] Array zeros(const Shape& shape, Dtype dtype = Dtype::kFloat32, Device device = default_device());
[[nodiscard]] Array ones(const Shape& shape, Dtype dtype = Dtype::kFloat32, Device device = default_device());
// Without a dtype, the scalar's own (bool, int64 or float64), as numpy.full.
[[nodiscard]] Array full(const Shape& shape, Scalar value, std::optional<Dtype> dtype = std::nullopt,
                         Device device = default_device());
[[nodiscard]] Array empty_like(const Array& a, std::optional<Dtype> dtype = std::nullopt);
[[nodiscard]] Array zeros_like(const Array& a, std::optional<Dtype> dtype = std::nullopt);
[[nodiscard]] Array ones_like(const Array& a, std::optional<Dtype> dtype = std::nullopt);
[[nodiscard]] Array full_like(const Array& a, Scalar value, std::optional<Dtype> dtype = std::nullopt);
// [start, stop) by step; without a dtype int64 when all are integers, else float64.
[[nodiscard]] Array arange(Scalar start, Scalar stop, Scalar step = 1, std::optional<Dtype> dtype = std::nullopt,
                           Device device = default_device());
[[nodiscard]] Array arange(Scalar stop, std::optional<Dtype> dtype = std::nullopt, Device device = default_device());
// `num` evenly spaced values over [start, stop] (or [start, stop) without endpoint); float64 default.
[[nodiscard]] Array linspace(double start, double stop, int64_t num, bool endpoint = true,
                             Dtype dtype = Dtype::kFloat64, Device device = default_device());
// n x m with ones on diagonal k.
[[nodiscard]] Array eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
                        Dtype dtype = Dtype::kFloat32, Device device = default_device());

}  // namespace rensa::ops
