#include "autograd/grad.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "autograd/backprop_engine.h"
#include "autograd/function_node.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"

namespace rensa {

namespace {

// Every function reachable backward from the outputs, in ascending rank.
std::vector<std::shared_ptr<FunctionNode>> functions_by_rank(const std::vector<Variable>& outputs) {
    std::vector<std::shared_ptr<FunctionNode>> found, stack;
    std::unordered_set<const FunctionNode*> seen;
    auto visit = [&](const std::shared_ptr<FunctionNode>& f) {
        if (f && seen.insert(f.get()).second) stack.push_back(f);
    };
    for (const Variable& y : outputs) visit(y.creator());
    while (!stack.empty()) {
        std::shared_ptr<FunctionNode> f = std::move(stack.back());
        stack.pop_back();
        for (const auto& x : f->inputs()) visit(x->creator());
        found.push_back(std::move(f));
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a->rank() < b->rank(); });
    return found;
}

// The nodes on some path from an input to an output: the inputs, then (in rank order,
// see Note [Rank ordering]) the outputs of every function with such a node as input.
std::unordered_set<const VariableNode*> nodes_needing_grad(const std::vector<Variable>& outputs,
                                                           const std::vector<Variable>& inputs) {
    std::unordered_set<const VariableNode*> required;
    for (const Variable& x : inputs) required.insert(x.node().get());
    for (const auto& f : functions_by_rank(outputs)) {
        const auto& xs = f->inputs();
        if (std::none_of(xs.begin(), xs.end(), [&](const auto& x) { return required.count(x.get()) != 0; })) continue;
        for (const auto& out : f->outputs()) {
            if (const auto y = out.lock()) required.insert(y.get());
        }
    }
    return required;
}

// The seed of outputs[i]: the given grad, or 1 (times loss_scale) for one element.
Variable grad_seed(const std::vector<Variable>& outputs, const std::vector<Variable>& grad_outputs, size_t i,
                   const GradOptions& options) {
    const Variable& y = outputs[i];
    RENSA_CHECK(y.defined(), ValueError, "grad: Expect: outputs[", i, "] to be defined, Actual: undefined Variable");
    if (i < grad_outputs.size() && grad_outputs[i].defined()) {
        detail::check_grad_fits(*y.node(), grad_outputs[i].array(),
                                [i] { return detail::concat("grad: grad_outputs[", i, "]"); });
        return grad_outputs[i];
    }
    RENSA_CHECK(y.size() == 1, ValueError, "grad: output ", i, " has shape ", y.shape(),
                "; only an output of one element gets the implicit seed 1: pass grad_outputs");
    Array one = ops::ones_like(y.array());
    if (options.loss_scale) one = ops::multiply(one, Scalar(*options.loss_scale));
    return Variable(one, false);
}

}  // namespace

std::vector<Variable> grad(const std::vector<Variable>& outputs, const std::vector<Variable>& inputs,
                           const std::vector<Variable>& grad_outputs, const GradOptions& options) {
    RENSA_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), ValueError,
                "grad: ", grad_outputs.size(), " grad_outputs for ", outputs.size(), " outputs");
    for (size_t j = 0; j < inputs.size(); ++j) {
        RENSA_CHECK(inputs[j].defined(), ValueError, "grad: Expect: inputs[", j,
                    "] to be defined, Actual: undefined Variable");
    }
    std::vector<Variable> seeds;
    for (size_t i = 0; i < outputs.size(); ++i) seeds.push_back(grad_seed(outputs, grad_outputs, i, options));

    const std::unordered_set<const VariableNode*> required = nodes_needing_grad(outputs, inputs);
    std::unordered_map<const VariableNode*, Variable> captured;
    for (const Variable& x : inputs) captured.emplace(x.node().get(), Variable{});

    ConfigScope<bool> mode{&Config::enable_backprop, options.enable_double_backprop};
    detail::BackpropEngine engine({.retain_grad = options.retain_grad,
                                   .loss_scale = options.loss_scale,
                                   .grad_required = &required,
                                   .captured = &captured});
    for (size_t i = 0; i < outputs.size(); ++i) engine.seed(outputs[i].node(), seeds[i]);
    engine.run();

    std::vector<Variable> result;
    for (const Variable& x : inputs) {
        Variable& gx = captured[x.node().get()];
        if (!gx.defined()) gx = engine.take_grad(x.node().get());  // never reached by its creator (a leaf)
        result.push_back(gx);
    }
    if (options.set_grad) {
        for (size_t j = 0; j < inputs.size(); ++j) inputs[j].set_grad_var(result[j]);
    }
    return result;
}

}  // namespace rensa
