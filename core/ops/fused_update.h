#pragma once
// The fused update (see Note [Fused updates] in optimizers/optimizer.h): validates
// FusedUpdateArgs (core/kernels.h) and runs the device's fused_update kernel, which changes
// param and the program's state arrays in place in one pass over the elements.

#include <cstdint>
#include <functional>
#include <span>

#include "core/kernels.h"

namespace rensa::ops {

// One update of args.param (in place) and its states from args.grad by args.program.
// The program must be set (ValueError) and pass check_update_program; param must be floating
// point (DtypeError) and writeable; grad and the program's n_states states must be defined
// (ValueError), have param's shape (DimensionError), dtype (DtypeError) and device
// (DeviceError); the states must be writeable. Errors name the program and its state
// ("fused_update(momentum_sgd): state 'v' is undefined"). Non-contiguous arrays are updated
// through contiguous copies. param, grad and the states must not overlap. Inside a
// FusedUpdateBatch the checks run at once and the update is deferred (see Note [Batched
// fused updates]).
void fused_update(const FusedUpdateArgs& args);

// Several updates with the result of fused_update on each in order: each is checked like
// fused_update (same errors, nothing runs when one is wrong), strided operands go through
// contiguous copies, and each device's kernel runs once on its updates (GPUs fuse them into
// few launches). No two updates may share a written array (param, states); a shared grad is fine.
void fused_update_multi(std::span<const FusedUpdateArgs> updates);

// Note [Batched fused updates]: while a FusedUpdateBatch is alive on a thread, fused_update
// on that thread checks its arguments and queues the update; the queue runs as one
// fused_update_multi when the scope ends (GradientMethod::update opens one around the loop
// over parameters, so the step is one pass per parameter on the CPU and a few launches on a
// GPU). Results are those of the updates run one by one, without any call by hand:
// queueing marks the storages of the written arrays (param, states) kPendingWrite and of the
// grad kPendingRead (Storage::pending_update, core/storage.h), and
//  - any data access to a kPendingWrite storage (Array::raw_data: host reads, every op or
//    kernel taking the array, serialization, numpy views) runs the queue first;
//  - any write into a kPendingRead or kPendingWrite storage (check_writeable, which every
//    write into an existing array passes, see Note [Read-only memory]) runs the queue first;
//  - an update whose grad shares storage with a queued written array, or whose written
//    arrays share storage with any queued array, runs the queue before it joins.
// Running the queue clears the marks first, so the kernels' own accesses do not recurse.
// The queue is the calling thread's: a read from another thread while a batch is open on
// this one is a data race, as any concurrent read of an array being written. A batch opened
// while another is active on the thread adds to the outer one.
class FusedUpdateBatch {
public:
    FusedUpdateBatch();
    // Runs the queue; during stack unwinding it still runs, and its errors are dropped.
    ~FusedUpdateBatch() noexcept(false);
    FusedUpdateBatch(const FusedUpdateBatch&) = delete;
    FusedUpdateBatch& operator=(const FusedUpdateBatch&) = delete;

private:
    bool owner_;
    int uncaught_;
};

// Runs `fn` once the updates queued so far have run: when the queue runs inside a batch, at
// once otherwise. `writes` (the array fn writes, or undefined) is marked kPendingWrite until
// then, so reading it runs the queue and fn first (UpdateRule's float32 master copied back
// to a float16 parameter).
void after_fused_updates(std::function<void()> fn, const Array& writes = Array());
// The number of updates queued on the calling thread (0 without an active batch).
int64_t pending_fused_updates();

}  // namespace rensa::ops
