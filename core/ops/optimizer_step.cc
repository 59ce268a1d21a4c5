// optimizer_step: check the arrays against the rule, then run the device's kernel on
// contiguous arrays (copies of the strided ones, written back afterwards).

#include "core/ops/optimizer_step.h"

#include <array>
#include <exception>
#include <functional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/error.h"

namespace rensa::ops {
namespace {

std::string_view rule_name(OptimizerRule rule) {
    switch (rule) {
        case OptimizerRule::kSgd:
            return "sgd";
        case OptimizerRule::kMomentumSgd:
            return "momentum_sgd";
        case OptimizerRule::kNesterovAg:
            return "nesterov_ag";
        case OptimizerRule::kCorrectedMomentumSgd:
            return "corrected_momentum_sgd";
        case OptimizerRule::kAdaGrad:
            return "ada_grad";
        case OptimizerRule::kAdaDelta:
            return "ada_delta";
        case OptimizerRule::kRmsprop:
            return "rmsprop";
        case OptimizerRule::kRmspropGraves:
            return "rmsprop_graves";
        case OptimizerRule::kSmorms3:
            return "smorms3";
        case OptimizerRule::kAdam:
            return "adam";
        case OptimizerRule::kMsvag:
            return "msvag";
    }
    __builtin_unreachable();
}

// Chainer's state keys of each rule, in the order of s0, s1, s2.
std::array<std::string_view, 3> state_names(const OptimizerStepArgs& args) {
    switch (args.rule) {
        case OptimizerRule::kSgd:
            return {};
        case OptimizerRule::kMomentumSgd:
        case OptimizerRule::kNesterovAg:
        case OptimizerRule::kCorrectedMomentumSgd:
            return {"v"};
        case OptimizerRule::kAdaGrad:
            return {"h"};
        case OptimizerRule::kAdaDelta:
            return {"msg", "msdx"};
        case OptimizerRule::kRmsprop:
            return {"ms"};
        case OptimizerRule::kRmspropGraves:
            return {"n", "g", "delta"};
        case OptimizerRule::kSmorms3:
            return {"mem", "g", "g2"};
        case OptimizerRule::kAdam:
            if (args.amsgrad) return {"m", "v", "vhat"};
            return {"m", "v"};
        case OptimizerRule::kMsvag:
            return {"m", "v"};
    }
    __builtin_unreachable();
}

// `what` ("grad", "state 'v'") must be defined and match param's shape, dtype and device.
void check_operand(const OptimizerStepArgs& args, const Array& a, const std::string& what) {
    const std::string_view op = rule_name(args.rule);
    const Array& p = args.param;
    RENSA_CHECK(a.defined(), ValueError, "optimizer_step(", op, "): ", what, " is undefined");
    RENSA_CHECK(a.shape() == p.shape(), DimensionError, "optimizer_step(", op, "): ", what, ".shape=", a.shape(),
                " does not match param.shape=", p.shape());
    RENSA_CHECK(a.dtype() == p.dtype(), DtypeError, "optimizer_step(", op, "): ", what,
                ".dtype=", dtype_name(a.dtype()), " does not match param.dtype=", dtype_name(p.dtype()));
    RENSA_CHECK(a.device() == p.device(), DeviceError, "optimizer_step(", op, "): ", what, " is on ", a.device(),
                " but param is on ", p.device());
}

void check_args(const OptimizerStepArgs& args) {
    const std::string_view op = rule_name(args.rule);
    RENSA_CHECK(args.param.defined(), ValueError, "optimizer_step(", op, "): param is undefined");
    RENSA_CHECK(is_float(args.param.dtype()), DtypeError, "optimizer_step(", op,
                "): Expect: param.dtype.kind == 'f', Actual: ", dtype_name(args.param.dtype()));
    check_writeable(args.param, detail::concat("optimizer_step(", op, "): param"));
    check_operand(args, args.grad, "grad");
    const Array* states[3] = {&args.s0, &args.s1, &args.s2};
    const auto names = state_names(args);
    for (int i = 0; i < optimizer_state_count(args); ++i) {
        const std::string what = detail::concat("state '", names[static_cast<size_t>(i)], "'");
        check_operand(args, *states[i], what);
        check_writeable(*states[i], detail::concat("optimizer_step(", op, "): ", what));
    }
}

}  // namespace

std::string_view optimizer_state_name(const OptimizerStepArgs& args, int index) {
    RENSA_ASSERT(index >= 0 && index < 3);
    return state_names(args)[static_cast<size_t>(index)];
}

int optimizer_state_count(const OptimizerStepArgs& args) {
    int n = 0;
    for (const std::string_view name : state_names(args)) n += name.empty() ? 0 : 1;
    return n;
}

namespace {

// The arrays of a step the kernel reads and writes: param and the rule's states.
int written_arrays(const OptimizerStepArgs& args, const Array* out[4]) {
    out[0] = &args.param;
    const Array* states[3] = {&args.s0, &args.s1, &args.s2};
    const int n_states = optimizer_state_count(args);
    for (int i = 0; i < n_states; ++i) out[1 + i] = states[i];
    return 1 + n_states;
}

bool contiguous_step(const OptimizerStepArgs& args) {
    const Array* w[4];
    const int n = written_arrays(args, w);
    bool contiguous = args.grad.is_contiguous();
    for (int i = 0; i < n; ++i) contiguous = contiguous && w[i]->is_contiguous();
    return contiguous;
}

// `args` with contiguous copies of its strided arrays; the strided in/out arrays and their
// copies are appended to `write_back` (copied back once the kernel ran).
OptimizerStepArgs contiguous_copy(const OptimizerStepArgs& args, std::vector<std::pair<Array, Array>>& write_back) {
    OptimizerStepArgs c = args;
    c.grad = args.grad.as_contiguous();
    const Array* w[4];
    const int n = written_arrays(args, w);
    Array* cw[4] = {&c.param, &c.s0, &c.s1, &c.s2};
    for (int i = 0; i < n; ++i) {
        *cw[i] = w[i]->as_contiguous();
        if (!w[i]->is_contiguous()) write_back.emplace_back(*w[i], *cw[i]);
    }
    return c;
}

// The queue of the calling thread's active OptimizerStepBatch, with the storages its
// steps write (param, states) and read (grad), to find conflicts in constant time.
struct BatchState {
    bool active = false;
    std::vector<OptimizerStepArgs> pending;
    std::vector<std::function<void()>> after;
    std::unordered_set<const Storage*> written, grads;
};
thread_local BatchState t_batch;

// True when `args` must not join the queue: one of its arrays shares storage with a queued
// written array, or one of its written arrays with a queued grad.
bool conflicts_with_queue(const OptimizerStepArgs& args) {
    if (t_batch.written.contains(args.grad.storage().get())) return true;
    const Array* w[4];
    const int n = written_arrays(args, w);
    for (int i = 0; i < n; ++i) {
        const Storage* storage = w[i]->storage().get();
        if (t_batch.written.contains(storage) || t_batch.grads.contains(storage)) return true;
    }
    return false;
}

void enqueue(const OptimizerStepArgs& args) {
    const Array* w[4];
    const int n = written_arrays(args, w);
    for (int i = 0; i < n; ++i) t_batch.written.insert(w[i]->storage().get());
    t_batch.grads.insert(args.grad.storage().get());
    t_batch.pending.push_back(args);
}

}  // namespace

void optimizer_step(const OptimizerStepArgs& args) {
    check_args(args);
    if (args.param.size() == 0) return;
    if (t_batch.active) {
        if (conflicts_with_queue(args)) flush_optimizer_steps();
        enqueue(args);
        return;
    }
    Kernels& kernels = global_context().kernels(args.param.device());
    if (contiguous_step(args)) return kernels.optimizer_step(args);
    // Strided fallback: the same kernel on contiguous copies, then the in/out arrays copied back.
    std::vector<std::pair<Array, Array>> write_back;
    kernels.optimizer_step(contiguous_copy(args, write_back));
    for (const auto& [dst, src] : write_back) dst.assign(src);
}

void optimizer_step_multi(std::span<const OptimizerStepArgs> steps) {
    for (const OptimizerStepArgs& step : steps) check_args(step);
    std::vector<std::pair<Array, Array>> write_back;
    std::vector<OptimizerStepArgs> ready;
    ready.reserve(steps.size());
    for (const OptimizerStepArgs& step : steps) {
        if (step.param.size() == 0) continue;
        ready.push_back(contiguous_step(step) ? step : contiguous_copy(step, write_back));
    }
    // One kernel call per device, in the order the devices first appear.
    std::vector<bool> done(ready.size(), false);
    std::vector<OptimizerStepArgs> group;
    for (size_t i = 0; i < ready.size(); ++i) {
        if (done[i]) continue;
        const Device device = ready[i].param.device();
        group.clear();
        for (size_t j = i; j < ready.size(); ++j) {
            if (done[j] || ready[j].param.device() != device) continue;
            group.push_back(ready[j]);
            done[j] = true;
        }
        global_context().kernels(device).optimizer_step_multi(group);
    }
    for (const auto& [dst, src] : write_back) dst.assign(src);
}

OptimizerStepBatch::OptimizerStepBatch() : owner_{!t_batch.active}, uncaught_{std::uncaught_exceptions()} {
    t_batch.active = true;
}

OptimizerStepBatch::~OptimizerStepBatch() noexcept(false) {
    if (!owner_) return;
    if (std::uncaught_exceptions() > uncaught_) {
        try {
            flush_optimizer_steps();
        } catch (...) {  // NOLINT(bugprone-empty-catch): an exception is already propagating
        }
    } else {
        try {
            flush_optimizer_steps();
        } catch (...) {
            t_batch = BatchState{};
            throw;
        }
    }
    t_batch = BatchState{};
}

void OptimizerStepBatch::flush() { flush_optimizer_steps(); }

void flush_optimizer_steps() {
    // Moved out first: a failing kernel must not leave the steps queued.
    const std::vector<OptimizerStepArgs> steps = std::move(t_batch.pending);
    const std::vector<std::function<void()>> after = std::move(t_batch.after);
    t_batch.pending.clear();
    t_batch.after.clear();
    t_batch.written.clear();
    t_batch.grads.clear();
    if (!steps.empty()) optimizer_step_multi(steps);
    for (const std::function<void()>& fn : after) fn();
}

void after_optimizer_steps(std::function<void()> fn) {
    if (t_batch.active) {
        t_batch.after.push_back(std::move(fn));
    } else {
        fn();
    }
}

int64_t pending_optimizer_steps() { return static_cast<int64_t>(t_batch.pending.size()); }

}  // namespace rensa::ops
