#pragma once
// The backprop engine shared by backward() and grad() (internal).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "autograd/function_node.h"
#include "autograd/leaf_grad_hook.h"
#include "autograd/variable.h"

namespace rensa::detail {

struct BackpropConfig {
    bool retain_grad = false;
    std::optional<double> loss_scale{};
    // grad(): the nodes whose grads are needed (on a path from an input to an output).
    // Null for backward(): there every node that requires grad gets one, and leaves
    // accumulate into the grad their variable already has.
    const std::unordered_set<const VariableNode*>* grad_required = nullptr;
    // grad(): nodes whose grad is recorded when their creator is reached.
    std::unordered_map<const VariableNode*, Variable>* captured = nullptr;
    // backward() with leaf-grad hooks registered: report each leaf as soon as its grad is
    // final. See Note [Leaf gradient readiness] in autograd/leaf_grad_hook.h.
    const std::vector<LeafGradHook>* leaf_hooks = nullptr;
};

class BackpropEngine {
public:
    explicit BackpropEngine(BackpropConfig config) : config_{std::move(config)} {}
    ~BackpropEngine();  // frees the gradient slots it still holds
    BackpropEngine(const BackpropEngine&) = delete;
    BackpropEngine& operator=(const BackpropEngine&) = delete;

    // Adds `grad` to the grad of output `node` and schedules its creator.
    void seed(const std::shared_ptr<VariableNode>& node, const Variable& grad) { accumulate(node, grad); }
    // Processes every scheduled function in rank order. See Note [Rank ordering].
    void run();
    // backward() with leaf hooks, after the seeds: counts the consumer slots of each leaf
    // among the functions reachable from the scheduled ones.
    void watch_leaves();
    // backward(): gives each leaf that received a grad (and was not reported yet) its
    // accumulated grad, and reports it to the leaf hooks when there are any.
    void set_leaf_grads();
    // grad(): removes and returns the accumulated grad of `node` (undefined when none).
    Variable take_grad(const VariableNode* node);

private:
    struct Scheduled {
        int64_t rank;
        uint64_t order;  // first scheduled first among equal ranks
        std::shared_ptr<FunctionNode> function;
    };
    struct Entry {                           // a grad table entry for a node whose slot another engine holds
        std::shared_ptr<VariableNode> node;  // keeps the key alive
        Variable grad;
    };

    // The grad table (Note [Gradient slots] in backward.cc): the accumulated grad of `node`
    // (null when it has none), a new empty entry, and removal of the entry.
    Variable* find_grad(const VariableNode& node);
    bool has_grad(const VariableNode& node) const;
    Variable& insert_grad(const std::shared_ptr<VariableNode>& node);
    Variable take_entry(const VariableNode& node);
    bool needs_grad(const VariableNode& node) const;
    void schedule(const std::shared_ptr<FunctionNode>& function);
    void accumulate(const std::shared_ptr<VariableNode>& node, const Variable& grad);
    Variable pop_grad(const std::shared_ptr<VariableNode>& node);
    // Fills grad_outputs_ with the grads of `function`'s outputs, removing them from the table.
    void pop_output_grads(const FunctionNode& function);
    void process(const std::shared_ptr<FunctionNode>& function);
    void release_leaf_slots(const FunctionNode& function);
    void complete_leaf(const VariableNode* leaf);
    std::vector<Variable> call_backward(FunctionNode& function, const std::vector<int>& targets,
                                        const std::vector<Variable>& grad_outputs);
    // The destinations offered to `function`'s backward, by input index (empty when none).
    // See Note [Gradient destinations] in backward.cc.
    std::vector<Array> offered_destinations(const FunctionNode& function, const std::vector<int>& targets) const;
    // The destination of `leaf` when it may receive its grad there now (undefined otherwise).
    Array usable_destination(const VariableNode& leaf) const;

    BackpropConfig config_;
    std::vector<Scheduled> heap_;
    std::unordered_set<const FunctionNode*> seen_;        // scheduled functions of several outputs
    std::vector<std::shared_ptr<VariableNode>> claimed_;  // nodes whose slot this engine took
    std::unordered_map<const VariableNode*, Entry> other_grads_;
    std::vector<std::shared_ptr<VariableNode>> leaves_;
    // Leaf hooks only: the unprocessed consumer slots of each leaf still waiting.
    std::unordered_map<const VariableNode*, int64_t> pending_slots_;
    uint64_t next_order_ = 0;
    // process()'s buffers, reused from node to node (emptied after each).
    std::vector<Variable> grad_outputs_;
    std::vector<int> targets_;
};

// Some variable got a grad destination: backward() starts looking for them (until then it
// does no extra work). See Note [Gradient destinations] in backward.cc.
void note_grad_destinations_in_use();
// The destination offered to the backward running on this thread for its input `index`;
// undefined when none. What FunctionNode::grad_destination returns.
const Array& offered_grad_destination(int index);

// Throws DimensionError / DtypeError naming the grad (`what` is called only then).
[[noreturn]] void throw_grad_mismatch(const VariableNode& node, const Array& grad, const std::string& what);
template <class Describe>
void check_grad_fits(const VariableNode& node, const Array& grad, const Describe& what) {
    if (grad.shape() == node.shape() && grad.dtype() == node.dtype()) [[likely]]
        return;
    throw_grad_mismatch(node, grad, what());
}

}  // namespace rensa::detail
