#include "autograd/function_node.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <typeinfo>

#include "autograd/backprop_engine.h"
#include "autograd/function_hook.h"
#include "autograd/live_count.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"

namespace rensa {

namespace {
// "rensa::(anonymous namespace)::Mul" -> "Mul".
std::string demangled_class_name(const std::type_info& type) {
    int status = 0;
    char* raw = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
    std::string name = status == 0 && raw != nullptr ? raw : type.name();
    std::free(raw);  // NOLINT(cppcoreguidelines-no-malloc): allocated by __cxa_demangle
    const size_t template_start = name.find('<');
    const size_t colon = name.rfind("::", template_start);
    return colon == std::string::npos ? name : name.substr(colon + 2);
}
}  // namespace

namespace detail {
void check_finite(const Array& a, const FunctionNode& function, const char* phase) {
    if (!a.defined() || !is_float(a.dtype())) return;
    if (ops::all(ops::isfinite(a)).item<bool>()) return;
    const bool has_nan = ops::any(ops::isnan(a)).item<bool>();
    RENSA_THROW(ValueError, has_nan ? "NaN" : "Inf", " is detected on ", phase, " computation of ", function.label());
}
}  // namespace detail

FunctionNode::FunctionNode() { detail::add_live(detail::LiveKind::kFunction, 1); }
FunctionNode::~FunctionNode() { detail::add_live(detail::LiveKind::kFunction, -1); }

int64_t FunctionNode::live_count() { return detail::live_total(detail::LiveKind::kFunction); }

std::string FunctionNode::label() const { return demangled_class_name(typeid(*this)); }

void FunctionNode::IndexSet::assign(const IndexList& indexes) {
    low_ = 0;
    other_.clear();
    for (const int i : indexes) {
        if (i >= 0 && i < 64)
            low_ |= uint64_t{1} << i;
        else
            other_.push_back(i);
    }
}

bool FunctionNode::IndexSet::contains(int index) const {
    if (index >= 0 && index < 64) return ((low_ >> index) & 1U) != 0;
    return std::find(other_.begin(), other_.end(), index) != other_.end();
}

std::vector<Variable> FunctionNode::apply(const std::vector<Variable>& inputs) {
    return apply_to(inputs.data(), inputs.size());
}

std::vector<Variable> FunctionNode::apply(std::initializer_list<Variable> inputs) {
    return apply_to(inputs.begin(), inputs.size());
}

std::vector<Variable> FunctionNode::apply_to(const Variable* inputs, size_t n_inputs) {
    RENSA_CHECK(!applied_, ValueError, label(), ": a FunctionNode can be applied only once; make a new one");
    applied_ = true;
    std::vector<Array> in_arrays;
    in_arrays.reserve(n_inputs);
    bool requires_grad = false;
    for (size_t i = 0; i < n_inputs; ++i) {
        RENSA_CHECK(inputs[i].defined(), ValueError, label(), ": Expect: inputs[", i,
                    "] to be defined, Actual: undefined Variable");
        in_arrays.push_back(inputs[i].array());
        requires_grad = requires_grad || inputs[i].requires_grad();
    }
    const std::vector<FunctionHook*>& hooks = detail::function_hooks();
    for (FunctionHook* hook : hooks) hook->forward_preprocess(*this, in_arrays);
    std::vector<Array> out_arrays = forward(in_arrays);
    for (FunctionHook* hook : hooks) hook->forward_postprocess(*this, in_arrays);
    for (FunctionHook* hook : hooks) hook->forward_outputs(*this, in_arrays, out_arrays);
    check_forward_outputs(out_arrays);

    // Without a graph the outputs get no VariableNode until one is asked for (Note [Lazy
    // variable nodes] in variable.cc); the node itself is freed when the caller drops it.
    const bool record = requires_grad && is_backprop_enabled();
    std::vector<Variable> outputs;
    outputs.reserve(out_arrays.size());
    for (Array& y : out_arrays) {
        outputs.push_back(record ? Variable(std::move(y), true) : Variable::without_node(std::move(y), requires_grad));
    }
    if (record) link(inputs, n_inputs, outputs);
    return outputs;
}

void FunctionNode::check_forward_outputs(const std::vector<Array>& outputs) const {
    RENSA_CHECK(!outputs.empty(), ValueError, label(), ": forward returned no outputs");
    for (size_t i = 0; i < outputs.size(); ++i) {
        RENSA_CHECK(outputs[i].defined(), ValueError, label(), ": forward returned an undefined output ", i);
    }
    if (is_debug()) {
        for (const Array& y : outputs) detail::check_finite(y, *this, "forward");
    }
}

void FunctionNode::link(const Variable* inputs, size_t n_inputs, const std::vector<Variable>& outputs) {
    inputs_.reserve(n_inputs);
    for (size_t i = 0; i < n_inputs; ++i) {
        const std::shared_ptr<VariableNode>& node = inputs[i].node();
        inputs_.push_back(node);
        rank_ = std::max(rank_, node->rank());
    }
    retained_inputs_.for_each([&](int i) {
        RENSA_CHECK(i >= 0 && static_cast<size_t>(i) < n_inputs, IndexError, label(), ": retain_inputs index ", i,
                    " is out of range for ", n_inputs, " inputs");
        inputs_[static_cast<size_t>(i)]->retained_data_ = inputs[static_cast<size_t>(i)].array();
    });
    if (!retained_outputs_.empty()) {
        retained_output_data_.resize(outputs.size());
        retained_outputs_.for_each([&](int i) {
            RENSA_CHECK(i >= 0 && static_cast<size_t>(i) < outputs.size(), IndexError, label(),
                        ": retain_outputs index ", i, " is out of range for ", outputs.size(), " outputs");
            retained_output_data_[static_cast<size_t>(i)] = outputs[static_cast<size_t>(i)].array();
        });
    }
    outputs_.reserve(outputs.size());
    std::shared_ptr<FunctionNode> self = shared_from_this();
    for (size_t k = 0; k < outputs.size(); ++k) {  // the last output takes `self` (no count update)
        const std::shared_ptr<VariableNode>& node = outputs[k].node();
        outputs_.emplace_back(node);
        node->set_creator(k + 1 == outputs.size() ? std::move(self) : self);
    }
}

const Array& FunctionNode::grad_destination(int index) { return detail::offered_grad_destination(index); }

Variable FunctionNode::retained_input(int index) const {
    RENSA_CHECK(index >= 0 && retained_inputs_.contains(index) && index < static_cast<int>(inputs_.size()), ValueError,
                label(), ": input ", index,
                " was not retained (call retain_inputs in forward) or the node was unchained");
    return inputs_[static_cast<size_t>(index)]->get_variable();
}

Variable FunctionNode::retained_output(int index) {
    RENSA_CHECK(
        index >= 0 && retained_outputs_.contains(index) && index < static_cast<int>(retained_output_data_.size()),
        ValueError, label(), ": output ", index, " was not retained (call retain_outputs in forward)");
    const Array& data = retained_output_data_[static_cast<size_t>(index)];
    std::weak_ptr<VariableNode>& out = outputs_.at(static_cast<size_t>(index));
    if (std::shared_ptr<VariableNode> node = out.lock()) return node->get_variable(data);
    // The output is gone: a fresh variable created by this node stands in for it.
    Variable y(data, true);
    y.node()->set_creator(shared_from_this());
    out = y.node();
    return y;
}

void FunctionNode::unchain() {
    const std::shared_ptr<FunctionNode> self = shared_from_this();  // outputs may hold the last reference
    for (const std::weak_ptr<VariableNode>& out : outputs_) {
        if (std::shared_ptr<VariableNode> node = out.lock(); node && node->creator().get() == this) {
            node->set_creator(nullptr);
        }
    }
    std::vector<std::shared_ptr<VariableNode>> inputs = std::move(inputs_);
    inputs_.clear();
    // Dropping the inputs may free a long chain: `inputs` dies here, each node handing
    // its creator to release_function (Note [Iterative graph release]).
}

}  // namespace rensa
