// optimizer_step: check the arrays against the rule, then run the device's kernel on
// contiguous arrays (copies of the strided ones, written back afterwards).

#include "core/ops/optimizer_step.h"

#include <array>
#include <string>

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
    check_operand(args, args.grad, "grad");
    const Array* states[3] = {&args.s0, &args.s1, &args.s2};
    const auto names = state_names(args);
    for (int i = 0; i < optimizer_state_count(args); ++i) {
        check_operand(args, *states[i], detail::concat("state '", names[static_cast<size_t>(i)], "'"));
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

void optimizer_step(const OptimizerStepArgs& args) {
    check_args(args);
    if (args.param.size() == 0) return;
    Kernels& kernels = global_context().kernels(args.param.device());
    const int n_states = optimizer_state_count(args);
    const Array* states[3] = {&args.s0, &args.s1, &args.s2};
    bool contiguous = args.param.is_contiguous() && args.grad.is_contiguous();
    for (int i = 0; i < n_states; ++i) contiguous = contiguous && states[i]->is_contiguous();
    if (contiguous) return kernels.optimizer_step(args);

    // Strided fallback: the same kernel on contiguous copies, then the in/out arrays copied back.
    OptimizerStepArgs c = args;
    c.param = args.param.as_contiguous();
    c.grad = args.grad.as_contiguous();
    Array* c_states[3] = {&c.s0, &c.s1, &c.s2};
    for (int i = 0; i < n_states; ++i) *c_states[i] = states[i]->as_contiguous();
    kernels.optimizer_step(c);
    if (!args.param.is_contiguous()) args.param.assign(c.param);
    for (int i = 0; i < n_states; ++i) {
        if (!states[i]->is_contiguous()) states[i]->assign(*c_states[i]);
    }
}

}  // namespace rensa::ops
