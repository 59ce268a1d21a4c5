#pragma once
// The fused optimizer update (see Note [Fused updates] in optimizers/optimizer.h):
// validates OptimizerStepArgs (core/kernels.h) and runs the device's optimizer_step
// kernel, which changes param and the rule's state arrays in place in one pass.

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

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
// param, grad and the states must not overlap. Inside an OptimizerStepBatch the checks
// run at once and the update is deferred (see Note [Batched optimizer steps]).
void optimizer_step(const OptimizerStepArgs& args);

// Several updates with the result of optimizer_step on each in order: each is checked
// like optimizer_step (same errors), strided operands go through contiguous copies, and
// each device's kernel runs once on its steps (GPUs fuse them into few launches). No two
// steps may share a written array (param, states); a shared grad is fine.
void optimizer_step_multi(std::span<const OptimizerStepArgs> steps);

// Note [Batched optimizer steps]: while an OptimizerStepBatch is alive on a thread,
// optimizer_step on that thread checks its arguments and queues the update; the queue runs
// as one optimizer_step_multi at flush() or at the scope's end (GradientMethod::update opens
// one around the loop over parameters, so a GPU updates all parameters in few launches).
// Results are those of the steps run one by one: a step whose arrays share storage with a
// queued step's written arrays (or whose written arrays share a queued grad's) flushes the
// queue first, and whoever reads a parameter after its step must call
// flush_optimizer_steps() first (UpdateRule::update does before hooks and the float16 copy
// back). A batch opened while another is active on the thread adds to the outer one.
class OptimizerStepBatch {
public:
    OptimizerStepBatch();
    // Flushes; during stack unwinding the queue still runs, and its errors are dropped.
    ~OptimizerStepBatch() noexcept(false);
    OptimizerStepBatch(const OptimizerStepBatch&) = delete;
    OptimizerStepBatch& operator=(const OptimizerStepBatch&) = delete;
    // Runs the queued updates now (the thread's active batch's, when this one is nested).
    void flush();

private:
    bool owner_;
    int uncaught_;
};

// Runs the calling thread's queued updates (no-op without an active batch), then the
// queued after_optimizer_steps callbacks in order.
void flush_optimizer_steps();
// Runs `fn` once the updates queued so far have run: at the next flush inside a batch,
// at once otherwise (UpdateRule's float32 master copied back to a float16 parameter).
void after_optimizer_steps(std::function<void()> fn);
// The number of updates queued on the calling thread (0 without an active batch).
int64_t pending_optimizer_steps();

}  // namespace rensa::ops
