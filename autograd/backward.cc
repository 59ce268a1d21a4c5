// The backprop engine and backward().
//
// Note [Rank ordering]: a variable node's rank is its creator's rank + 1 (0 for a
// leaf) and a function's rank is the largest rank of its inputs. Every function g
// consuming an output y of f therefore has rank(g) >= rank(y) = rank(f) + 1 > rank(f).
// The engine pops functions from a max-heap keyed by rank, so by the time f is popped
// every consumer of its outputs has run and their grads are complete: each function's
// backward runs exactly once, with the total gradient, and no recursion is needed
// (a chain of a million functions is a loop of a million steps). Among equal ranks
// the function scheduled first runs first, which makes the order deterministic.
//
// Note [Gradient destinations]: a leaf variable may name the array its grad goes to
// (Variable::set_grad_destination; the multi-node optimizer gives each parameter a view
// into its all-reduce bucket, so the bucket is filled by backward itself and nothing is
// packed). When backward() completes such a leaf and its grad is a plain array (not
// recorded for double backprop) of the variable's shape, dtype and device, the grad is
// written into the destination, which becomes the variable's grad; when the grad already
// is the destination, nothing is copied. A function can produce that case: while backward
// (not grad(), not double backprop) runs a function one of whose inputs is such a leaf,
// with no grad yet (neither in the variable nor accumulated in this pass) and not
// repeated among the function's inputs, FunctionNode::grad_destination(i) returns the
// destination, and a function that can write there directly does (linear's weight and
// bias GEMMs). Every other grad costs one copy, made while the grad is hot in cache.

#include <algorithm>
#include <atomic>
#include <sstream>

#include "autograd/backprop_engine.h"
#include "autograd/basic_math.h"
#include "autograd/function_hook.h"
#include "autograd/leaf_grad_hook.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"

namespace rensa::detail {

namespace {
std::atomic<bool> g_destinations_in_use{false};
thread_local const std::vector<Array>* t_offered = nullptr;

// Offers `destinations` to the backward called in this scope.
class OfferScope {
public:
    explicit OfferScope(const std::vector<Array>* destinations) : saved_{t_offered} { t_offered = destinations; }
    ~OfferScope() { t_offered = saved_; }
    OfferScope(const OfferScope&) = delete;
    OfferScope& operator=(const OfferScope&) = delete;

private:
    const std::vector<Array>* saved_;
};

// The array `grad` is `destination` itself (a function wrote the grad there).
bool is_same_array(const Array& grad, const Array& destination) {
    return grad.raw_data() == destination.raw_data() && grad.shape() == destination.shape() &&
           grad.strides() == destination.strides() && grad.dtype() == destination.dtype() &&
           grad.device() == destination.device();
}

bool lower_priority(const auto& a, const auto& b) {  // heap order: highest rank, then oldest
    return a.rank != b.rank ? a.rank < b.rank : a.order > b.order;
}

std::vector<Array> arrays_of(const std::vector<Variable>& vars) {
    std::vector<Array> arrays;
    arrays.reserve(vars.size());
    for (const Variable& v : vars) arrays.push_back(v.defined() ? v.array() : Array{});
    return arrays;
}

std::string shapes_of(const FunctionNode& function) {
    std::ostringstream os;
    for (size_t i = 0; i < function.inputs().size(); ++i) os << (i ? ", " : "") << function.inputs()[i]->shape();
    return os.str();
}
}  // namespace

void note_grad_destinations_in_use() { g_destinations_in_use.store(true, std::memory_order_relaxed); }

const Array& offered_grad_destination(int index) {
    static const Array kNone{};
    if (t_offered == nullptr || index < 0 || static_cast<size_t>(index) >= t_offered->size()) return kNone;
    return (*t_offered)[static_cast<size_t>(index)];
}

void throw_grad_mismatch(const VariableNode& node, const Array& grad, const std::string& what) {
    RENSA_CHECK(grad.shape() == node.shape(), DimensionError, what, " has shape ", grad.shape(),
                " but the variable has shape ", node.shape());
    RENSA_CHECK(grad.dtype() == node.dtype(), DtypeError, what, " has dtype ", grad.dtype(),
                " but the variable has dtype ", node.dtype());
    RENSA_ASSERT(false);
}

bool BackpropEngine::needs_grad(const VariableNode& node) const {
    return config_.grad_required ? config_.grad_required->count(&node) != 0 : node.requires_grad();
}

// Note [Gradient slots]: the grad table of a backward run maps each node reached to its
// accumulated grad. Instead of a hash map (an allocation and a hash per node, twice),
// the engine keeps the grad in the node itself (VariableNode::grad_in_flight_), marked
// with the engine that owns it (grad_owner_), and keeps the node alive in claimed_. A node
// whose slot another engine holds (a backward run inside a function's backward, say, over
// a graph sharing that node) goes to the hash map other_grads_ instead. The destructor
// clears the slots still held, also when backward throws. A function is scheduled when
// one of its outputs gets its first grad; every consumer of an output runs before its
// creator (Note [Rank ordering]), so a function of one output is scheduled once without
// a seen-set; only functions of several outputs are looked up in seen_.
BackpropEngine::~BackpropEngine() {
    for (const std::shared_ptr<VariableNode>& node : claimed_) {
        if (node->grad_owner_ != this) continue;
        node->grad_owner_ = nullptr;
        node->grad_in_flight_ = Variable{};
    }
}

Variable* BackpropEngine::find_grad(const VariableNode& node) {
    if (node.grad_owner_ == this) return &node.grad_in_flight_;
    if (other_grads_.empty()) return nullptr;
    const auto it = other_grads_.find(&node);
    return it == other_grads_.end() ? nullptr : &it->second.grad;
}

bool BackpropEngine::has_grad(const VariableNode& node) const {
    return node.grad_owner_ == this || (!other_grads_.empty() && other_grads_.count(&node) != 0);
}

Variable& BackpropEngine::insert_grad(const std::shared_ptr<VariableNode>& node) {
    if (node->grad_owner_ == nullptr) {
        node->grad_owner_ = this;
        claimed_.push_back(node);
        return node->grad_in_flight_;
    }
    Entry& entry = other_grads_[node.get()];
    entry.node = node;
    return entry.grad;
}

Variable BackpropEngine::take_entry(const VariableNode& node) {
    if (node.grad_owner_ == this) {
        node.grad_owner_ = nullptr;
        return std::move(node.grad_in_flight_);
    }
    const auto it = other_grads_.find(&node);
    if (it == other_grads_.end()) return {};
    Variable grad = std::move(it->second.grad);
    other_grads_.erase(it);
    return grad;
}

void BackpropEngine::schedule(const std::shared_ptr<FunctionNode>& function) {
    if (function->outputs().size() > 1 && !seen_.insert(function.get()).second) return;
    heap_.push_back({function->rank(), next_order_++, function});
    std::push_heap(heap_.begin(), heap_.end(), lower_priority<Scheduled, Scheduled>);
}

void BackpropEngine::accumulate(const std::shared_ptr<VariableNode>& node, const Variable& grad) {
    if (!grad.defined()) return;
    if (Variable* existing = find_grad(*node)) {
        *existing = existing->defined() ? *existing + grad : grad;
        return;
    }
    Variable& entry = insert_grad(node);
    entry = grad;
    if (const std::shared_ptr<FunctionNode>& creator = node->creator()) {
        schedule(creator);
        return;
    }
    leaves_.push_back(node);
    if (config_.grad_required == nullptr) {  // backward() accumulates into a leaf's existing grad
        const Variable var = node->get_variable_or_none();
        if (var.defined() && var.grad_var().defined()) entry = var.grad_var() + grad;
    }
}

Variable BackpropEngine::pop_grad(const std::shared_ptr<VariableNode>& node) {
    if (!has_grad(*node)) {
        // Chainer's GradTable(load_if_new): an output reached by no path keeps its own grad.
        if (config_.grad_required != nullptr) return {};
        const Variable var = node->get_variable_or_none();
        return var.defined() ? var.grad_var() : Variable{};
    }
    return take_entry(*node);
}

Variable BackpropEngine::take_grad(const VariableNode* node) { return take_entry(*node); }

void BackpropEngine::pop_output_grads(const FunctionNode& function) {
    std::vector<Variable>& grads = grad_outputs_;
    grads.resize(function.outputs().size());
    for (size_t i = 0; i < grads.size(); ++i) {
        const std::shared_ptr<VariableNode> y = function.outputs()[i].lock();
        if (!y || y->creator().get() != &function) continue;  // dropped, or unchained
        grads[i] = pop_grad(y);
        if (config_.captured != nullptr) {
            if (const auto c = config_.captured->find(y.get()); c != config_.captured->end()) c->second = grads[i];
        }
        if (config_.retain_grad && grads[i].defined()) {
            if (const Variable var = y->get_variable_or_none(); var.defined()) {
                var.data_->grad = grads[i];
                var.data_->loss_scale = config_.loss_scale;
            }
        }
    }
}

std::vector<Variable> BackpropEngine::call_backward(FunctionNode& function, const std::vector<int>& targets,
                                                    const std::vector<Variable>& grad_outputs) {
    const std::vector<FunctionHook*>& hooks = function_hooks();
    std::vector<Array> in_data, out_grads;
    if (!hooks.empty()) {
        for (const auto& x : function.inputs()) in_data.push_back(x->retained_data());
        out_grads = arrays_of(grad_outputs);
    }
    for (FunctionHook* hook : hooks) hook->backward_preprocess(function, in_data, out_grads);
    const std::vector<Array> destinations = offered_destinations(function, targets);
    std::vector<Variable> grads;
    {
        OfferScope offer{destinations.empty() ? nullptr : &destinations};
        grads = function.backward(targets, grad_outputs);
    }
    for (FunctionHook* hook : hooks) hook->backward_postprocess(function, in_data, out_grads);

    const size_t n_inputs = function.inputs().size();
    if (grads.size() == n_inputs && n_inputs != targets.size()) {  // one per input: keep the targets'
        std::vector<Variable> selected;
        for (int i : targets) selected.push_back(std::move(grads[static_cast<size_t>(i)]));
        grads = std::move(selected);
    }
    RENSA_CHECK(grads.size() == targets.size(), ValueError, function.label(), ": backward returned ", grads.size(),
                " gradients for ", targets.size(), " target inputs (", n_inputs, " inputs of shapes ",
                shapes_of(function), ")");
    return grads;
}

void BackpropEngine::process(const std::shared_ptr<FunctionNode>& function) {
    struct Clear {  // the buffers let go of the grads when the node is done
        BackpropEngine& engine;
        ~Clear() {
            engine.grad_outputs_.clear();
            engine.targets_.clear();
        }
    } clear{*this};
    pop_output_grads(*function);
    const std::vector<Variable>& grad_outputs = grad_outputs_;
    std::vector<int>& targets = targets_;
    const auto& inputs = function->inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (needs_grad(*inputs[i])) targets.push_back(static_cast<int>(i));
    }
    const bool any_grad = std::any_of(grad_outputs.begin(), grad_outputs.end(), [](auto& g) { return g.defined(); });
    if (targets.empty() || !any_grad) return;

    const std::vector<Variable> grads = call_backward(*function, targets, grad_outputs);
    for (size_t k = 0; k < targets.size(); ++k) {
        if (!grads[k].defined()) continue;
        const auto& x = inputs[static_cast<size_t>(targets[k])];
        check_grad_fits(*x, grads[k].array(),
                        [&] { return concat(function->label(), ": backward's gradient of input ", targets[k]); });
        if (is_debug()) check_finite(grads[k].array(), *function, "backward");
    }
    for (size_t k = 0; k < targets.size(); ++k) accumulate(inputs[static_cast<size_t>(targets[k])], grads[k]);
}

void BackpropEngine::run() {
    while (!heap_.empty()) {
        std::pop_heap(heap_.begin(), heap_.end(), lower_priority<Scheduled, Scheduled>);
        const std::shared_ptr<FunctionNode> function = std::move(heap_.back().function);
        heap_.pop_back();
        process(function);
        if (!pending_slots_.empty()) release_leaf_slots(*function);
    }
}

// See Note [Leaf gradient readiness]. Only inputs that need a grad can receive one, so the
// walk follows those edges, as accumulate() does.
void BackpropEngine::watch_leaves() {
    std::vector<const FunctionNode*> stack;
    std::unordered_set<const FunctionNode*> visited;
    for (const Scheduled& s : heap_) {
        if (visited.insert(s.function.get()).second) stack.push_back(s.function.get());
    }
    while (!stack.empty()) {
        const FunctionNode* function = stack.back();
        stack.pop_back();
        for (const std::shared_ptr<VariableNode>& x : function->inputs()) {
            if (!needs_grad(*x)) continue;
            if (const std::shared_ptr<FunctionNode>& creator = x->creator()) {
                if (visited.insert(creator.get()).second) stack.push_back(creator.get());
            } else {
                ++pending_slots_[x.get()];
            }
        }
    }
}

void BackpropEngine::release_leaf_slots(const FunctionNode& function) {
    for (const std::shared_ptr<VariableNode>& x : function.inputs()) {
        const auto it = pending_slots_.find(x.get());
        if (it == pending_slots_.end() || --it->second > 0) continue;
        pending_slots_.erase(it);
        complete_leaf(x.get());
    }
}

// See Note [Gradient destinations].
Array BackpropEngine::usable_destination(const VariableNode& leaf) const {
    if (config_.grad_required != nullptr || is_backprop_enabled() || leaf.creator()) return {};
    const Variable var = leaf.get_variable_or_none();
    if (!var.defined() || var.grad_var().defined() || has_grad(leaf)) return {};
    const Array& destination = var.data_->grad_destination;
    if (!destination.defined() || destination.shape() != leaf.shape() || destination.dtype() != leaf.dtype() ||
        destination.device() != leaf.device()) {
        return {};
    }
    return destination;
}

std::vector<Array> BackpropEngine::offered_destinations(const FunctionNode& function,
                                                        const std::vector<int>& targets) const {
    if (!g_destinations_in_use.load(std::memory_order_relaxed)) return {};
    const auto& inputs = function.inputs();
    std::vector<Array> offered;
    for (const int i : targets) {
        const VariableNode* x = inputs[static_cast<size_t>(i)].get();
        const auto repeats = std::count_if(inputs.begin(), inputs.end(), [x](const auto& in) { return in.get() == x; });
        Array destination = repeats == 1 ? usable_destination(*x) : Array{};
        if (!destination.defined()) continue;
        offered.resize(inputs.size());
        offered[static_cast<size_t>(i)] = std::move(destination);
    }
    return offered;
}

// Stores the leaf's grad in its variable (in its destination when it has a usable one; see
// Note [Gradient destinations]) and reports it (nothing when it received none).
void BackpropEngine::complete_leaf(const VariableNode* leaf) {
    if (!has_grad(*leaf)) return;
    const Variable var = leaf->get_variable_or_none();
    Variable grad = take_entry(*leaf);
    if (!var.defined() || !grad.defined()) return;
    const Array& destination = var.data_->grad_destination;
    if (destination.defined() && !grad.creator() && destination.shape() == grad.shape() &&
        destination.dtype() == grad.dtype() && destination.device() == grad.device()) {
        if (!is_same_array(grad.array(), destination)) {
            NoBackpropMode no_graph;
            destination.assign(grad.array());
            grad = Variable(destination, false);
        }
    }
    var.data_->grad = std::move(grad);
    var.data_->loss_scale = config_.loss_scale;
    if (config_.leaf_hooks == nullptr) return;
    for (const LeafGradHook& hook : *config_.leaf_hooks) hook(var);
}

void BackpropEngine::set_leaf_grads() {
    pending_slots_.clear();  // the leaves still waiting have unreached consumers: report now
    for (const std::shared_ptr<VariableNode>& leaf : leaves_) complete_leaf(leaf.get());
}

}  // namespace rensa::detail

namespace rensa {

namespace {
// The seed of an output already validated by backward(): the given grad, the output's
// own grad, or 1 (times loss_scale), which becomes its grad as in Chainer.
Variable output_seed(const Variable& y, const Variable& given, const BackwardOptions& options) {
    if (given.defined()) return given;
    if (y.grad_var().defined()) return y.grad_var();
    Array one = ops::ones_like(y.array());
    if (options.loss_scale) one = ops::multiply(one, Scalar(*options.loss_scale));
    const Variable seed(one, false);
    y.set_grad_var(seed);
    return seed;
}
}  // namespace

void backward(const std::vector<Variable>& outputs, const std::vector<Variable>& grad_outputs,
              const BackwardOptions& options) {
    RENSA_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), ValueError,
                "backward: ", grad_outputs.size(), " grad_outputs for ", outputs.size(), " outputs");
    std::vector<Variable> seeds(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {  // validate every seed before changing anything
        RENSA_CHECK(outputs[i].defined(), ValueError, "backward: Expect: outputs[", i,
                    "] to be defined, Actual: undefined Variable");
        if (!outputs[i].creator()) continue;  // a leaf: nothing to do (as Chainer)
        const Variable& given = grad_outputs.empty() ? Variable{} : grad_outputs[i];
        if (given.defined())
            detail::check_grad_fits(*outputs[i].node(), given.array(),
                                    [i] { return detail::concat("backward: grad_outputs[", i, "]"); });
        else if (!outputs[i].grad_var().defined()) {
            RENSA_CHECK(outputs[i].size() == 1, ValueError, "backward: output ", i, " has shape ", outputs[i].shape(),
                        " and no grad; only an output of one element gets the implicit seed 1: set its grad or "
                        "pass grad_outputs");
        }
    }
    ConfigScope<bool> mode{&Config::enable_backprop, options.enable_double_backprop};
    // A copy: a hook may open or close scopes. Empty (no work) when no scope is active.
    const std::vector<LeafGradHook> hooks = leaf_grad_hooks().empty() ? std::vector<LeafGradHook>{} : leaf_grad_hooks();
    detail::BackpropEngine engine({.retain_grad = options.retain_grad,
                                   .loss_scale = options.loss_scale,
                                   .leaf_hooks = hooks.empty() ? nullptr : &hooks});
    for (size_t i = 0; i < outputs.size(); ++i) {
        if (!outputs[i].creator()) continue;
        const Variable& given = grad_outputs.empty() ? Variable{} : grad_outputs[i];
        engine.seed(outputs[i].node(), output_seed(outputs[i], given, options));
    }
    if (!hooks.empty()) engine.watch_leaves();
    engine.run();
    engine.set_leaf_grads();
}

}  // namespace rensa
