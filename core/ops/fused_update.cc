// fused_update: check the arrays against the program, then run the device's kernel on
// contiguous arrays (copies of the strided ones, written back afterwards), now or, inside a
// FusedUpdateBatch, when the queue runs (see Note [Batched fused updates]).

#include "core/ops/fused_update.h"

#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/update_program.h"

namespace rensa::ops {
namespace {

const std::string& program_name(const FusedUpdateArgs& args) { return args.program->name; }

// `what` ("grad", "state 'v'") must be defined and match param's shape, dtype and device.
void check_operand(const FusedUpdateArgs& args, const Array& a, const std::string& what) {
    const std::string& op = program_name(args);
    const Array& p = args.param;
    RENSA_CHECK(a.defined(), ValueError, "fused_update(", op, "): ", what, " is undefined");
    RENSA_CHECK(a.shape() == p.shape(), DimensionError, "fused_update(", op, "): ", what, ".shape=", a.shape(),
                " does not match param.shape=", p.shape());
    RENSA_CHECK(a.dtype() == p.dtype(), DtypeError, "fused_update(", op, "): ", what, ".dtype=", dtype_name(a.dtype()),
                " does not match param.dtype=", dtype_name(p.dtype()));
    RENSA_CHECK(a.device() == p.device(), DeviceError, "fused_update(", op, "): ", what, " is on ", a.device(),
                " but param is on ", p.device());
}

void check_args(const FusedUpdateArgs& args) {
    RENSA_CHECK(args.program != nullptr, ValueError, "fused_update: the update program is not set");
    check_update_program(*args.program);
    const std::string& op = program_name(args);
    RENSA_CHECK(args.param.defined(), ValueError, "fused_update(", op, "): param is undefined");
    RENSA_CHECK(is_float(args.param.dtype()), DtypeError, "fused_update(", op,
                "): Expect: param.dtype.kind == 'f', Actual: ", dtype_name(args.param.dtype()));
    check_operand(args, args.grad, "grad");
    const int n_states = args.program->n_states();
    const auto state_what = [&](int i) {
        return detail::concat("state '", args.program->state_names[static_cast<size_t>(i)], "'");
    };
    for (int i = 0; i < n_states; ++i) check_operand(args, args.states[static_cast<size_t>(i)], state_what(i));
    // Last: check_writeable runs the queue when an array is in it (Note [Batched fused
    // updates]), which a call that fails the checks above must not do.
    check_writeable(args.param, detail::concat("fused_update(", op, "): param"));
    for (int i = 0; i < n_states; ++i) {
        check_writeable(args.states[static_cast<size_t>(i)], detail::concat("fused_update(", op, "): ", state_what(i)));
    }
}

// The arrays of an update the kernel reads and writes: param and the program's states.
int written_arrays(const FusedUpdateArgs& args, const Array* out[1 + kUpdateMaxStates]) {
    out[0] = &args.param;
    const int n_states = args.program->n_states();
    for (int i = 0; i < n_states; ++i) out[1 + i] = &args.states[static_cast<size_t>(i)];
    return 1 + n_states;
}

bool contiguous_update(const FusedUpdateArgs& args) {
    const Array* w[1 + kUpdateMaxStates];
    const int n = written_arrays(args, w);
    bool contiguous = args.grad.is_contiguous();
    for (int i = 0; i < n; ++i) contiguous = contiguous && w[i]->is_contiguous();
    return contiguous;
}

// `args` with contiguous copies of its strided arrays; the strided in/out arrays and their
// copies are appended to `write_back` (copied back once the kernel ran).
FusedUpdateArgs contiguous_copy(const FusedUpdateArgs& args, std::vector<std::pair<Array, Array>>& write_back) {
    FusedUpdateArgs c = args;
    c.grad = args.grad.as_contiguous();
    const Array* w[1 + kUpdateMaxStates];
    const int n = written_arrays(args, w);
    Array* cw[1 + kUpdateMaxStates] = {&c.param};
    for (int i = 1; i < n; ++i) cw[i] = &c.states[static_cast<size_t>(i - 1)];
    for (int i = 0; i < n; ++i) {
        *cw[i] = w[i]->as_contiguous();
        if (!w[i]->is_contiguous()) write_back.emplace_back(*w[i], *cw[i]);
    }
    return c;
}

// The queue of the calling thread's active FusedUpdateBatch; the marks on the storages of
// its arrays find conflicts in constant time (see Note [Batched fused updates]).
struct BatchState {
    bool active = false;
    std::vector<FusedUpdateArgs> pending;
    std::vector<std::function<void()>> after;
    std::vector<Array> after_writes;
};
thread_local BatchState t_batch;

// True when `args` must not join the queue: its grad shares storage with a queued written
// array, or one of its written arrays shares storage with any queued array.
bool conflicts_with_queue(const FusedUpdateArgs& args) {
    if (args.grad.storage()->pending_update() & Storage::kPendingWrite) return true;
    const Array* w[1 + kUpdateMaxStates];
    const int n = written_arrays(args, w);
    for (int i = 0; i < n; ++i) {
        if (w[i]->storage()->pending_update() != 0) return true;
    }
    return false;
}

void enqueue(const FusedUpdateArgs& args) {
    const Array* w[1 + kUpdateMaxStates];
    const int n = written_arrays(args, w);
    for (int i = 0; i < n; ++i) w[i]->storage()->mark_pending_update(Storage::kPendingWrite);
    args.grad.storage()->mark_pending_update(Storage::kPendingRead);
    t_batch.pending.push_back(args);
}

void clear_marks(const std::vector<FusedUpdateArgs>& updates, const std::vector<Array>& after_writes) {
    for (const FusedUpdateArgs& u : updates) {
        const Array* w[1 + kUpdateMaxStates];
        const int n = written_arrays(u, w);
        for (int i = 0; i < n; ++i) w[i]->storage()->clear_pending_update();
        u.grad.storage()->clear_pending_update();
    }
    for (const Array& a : after_writes) a.storage()->clear_pending_update();
}

// Runs the calling thread's queue, then the after_fused_updates callbacks in order.
void run_queue() {
    // Moved out and unmarked first: a failing kernel must not leave the updates queued, and
    // the kernels' own accesses to the arrays must not run the queue again.
    const std::vector<FusedUpdateArgs> updates = std::move(t_batch.pending);
    const std::vector<std::function<void()>> after = std::move(t_batch.after);
    const std::vector<Array> after_writes = std::move(t_batch.after_writes);
    t_batch.pending.clear();
    t_batch.after.clear();
    t_batch.after_writes.clear();
    clear_marks(updates, after_writes);
    if (!updates.empty()) fused_update_multi(updates);
    for (const std::function<void()>& fn : after) fn();
}

}  // namespace

void fused_update(const FusedUpdateArgs& args) {
    check_args(args);
    if (args.param.size() == 0) return;
    if (t_batch.active) {
        if (conflicts_with_queue(args)) run_queue();
        enqueue(args);
        return;
    }
    fused_update_multi({&args, 1});
}

void fused_update_multi(std::span<const FusedUpdateArgs> updates) {
    for (const FusedUpdateArgs& u : updates) check_args(u);
    std::vector<std::pair<Array, Array>> write_back;
    std::vector<FusedUpdateArgs> ready;
    ready.reserve(updates.size());
    for (const FusedUpdateArgs& u : updates) {
        if (u.param.size() == 0) continue;
        ready.push_back(contiguous_update(u) ? u : contiguous_copy(u, write_back));
    }
    // One kernel call per device, in the order the devices first appear.
    std::vector<bool> done(ready.size(), false);
    std::vector<FusedUpdateArgs> group;
    for (size_t i = 0; i < ready.size(); ++i) {
        if (done[i]) continue;
        const Device device = ready[i].param.device();
        group.clear();
        for (size_t j = i; j < ready.size(); ++j) {
            if (done[j] || ready[j].param.device() != device) continue;
            group.push_back(ready[j]);
            done[j] = true;
        }
        global_context().kernels(device).fused_update(group);
    }
    for (const auto& [dst, src] : write_back) dst.assign(src);
}

FusedUpdateBatch::FusedUpdateBatch() : owner_{!t_batch.active}, uncaught_{std::uncaught_exceptions()} {
    t_batch.active = true;
}

FusedUpdateBatch::~FusedUpdateBatch() noexcept(false) {
    if (!owner_) return;
    if (std::uncaught_exceptions() > uncaught_) {
        try {
            run_queue();
        } catch (...) {  // NOLINT(bugprone-empty-catch): an exception is already propagating
        }
    } else {
        try {
            run_queue();
        } catch (...) {
            t_batch = BatchState{};
            throw;
        }
    }
    t_batch = BatchState{};
}

void after_fused_updates(std::function<void()> fn, const Array& writes) {
    if (!t_batch.active) return fn();
    if (writes.defined()) {
        writes.storage()->mark_pending_update(Storage::kPendingWrite);
        t_batch.after_writes.push_back(writes);
    }
    t_batch.after.push_back(std::move(fn));
}

int64_t pending_fused_updates() { return static_cast<int64_t>(t_batch.pending.size()); }

}  // namespace rensa::ops

namespace rensa::detail {

void run_pending_updates() { ops::run_queue(); }

}  // namespace rensa::detail
