#pragma once
// chainer.dataset.concat_examples and the converter signature updaters and evaluators take.

#include <functional>
#include <optional>
#include <vector>

#include "core/device.h"
#include "core/scalar.h"
#include "training/dataset.h"

namespace rensa::training {

// Turns a list of examples into the arrays fed to the model, optionally on `device`.
using Converter = std::function<Example(const std::vector<Example>& batch, std::optional<Device> device)>;

// Stacks the i-th value of every example along a new first axis (and, for dict
// examples, each key's values), then transfers to `device` when given. With `padding`,
// values of different shapes are padded with it to the largest shape per axis (Chainer's
// padding argument); without it, a shape or dtype mismatch raises DimensionError /
// DtypeError naming the example index, the value position and both shapes. With padding,
// values are cast to example 0's dtype (Chainer fills an array of that dtype) and must
// have its number of dimensions (DimensionError). ValueError for an empty batch or
// examples of different lengths or keys. The result never aliases the examples (a copy:
// one allocation per position, one memcpy per contiguous example).
[[nodiscard]] Example concat_examples(const std::vector<Example>& batch, std::optional<Device> device = std::nullopt,
                                      std::optional<Scalar> padding = std::nullopt);

}  // namespace rensa::training
