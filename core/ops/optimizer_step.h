#pragma once
// The fused optimizer update (see Note [Fused updates] in optimizers/optimizer.h):
// validates OptimizerStepArgs (core/kernels.h) and runs the device's optimizer_step
// kernel, which changes param and the rule's state arrays in place in one pass.

#include <string_view>

#include "core/kernels.h"

namespace rensa::ops {

// Chainer's name of a rule's state array `index` (0..2) ("v", "m", "vhat", ...); empty
// when the rule does not use it (Adam's vhat only with amsgrad).
std::string_view optimizer_state_name(const OptimizerStepArgs& args, int index);
// The number of state arrays the rule reads and writes (s0, s1, s2 in this order).
int optimizer_state_count(const OptimizerStepArgs& args);

// One update of args.param (in place) and its state arrays from args.grad. param must
// be floating point (DtypeError); grad and every state the rule uses must be defined
// (ValueError), have param's shape (DimensionError), dtype (DtypeError) and device
// (DeviceError). Non-contiguous arrays are updated through contiguous copies.
// param, grad and the states must not overlap.
void optimizer_step(const OptimizerStepArgs& args);

}  // namespace rensa::ops
