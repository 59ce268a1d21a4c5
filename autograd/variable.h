#pragma once
// Variable: the user's handle on an array that takes part in autograd, and
// VariableNode, its node in the computational graph.
//
// A Variable is an aliasing handle (like Array): copies share one VariableData
// {array, grad, node}, so setting the grad through one copy is seen by all. The
// graph node is separate: a VariableNode knows its creator FunctionNode (owned:
// backward edges own), its rank, the metadata of its array and, when a function
// retained it, the array itself. Function nodes hold their input nodes strongly and
// their outputs weakly, so dropping the last output Variable frees the graph behind
// it (iteratively: see Note [Iterative graph release] in variable.cc).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/array.h"

namespace rensa {

class FunctionNode;
class VariableNode;
struct VariableData;
namespace detail {
class BackpropEngine;
}

// Options of Variable::backward and rensa::backward (Chainer's keyword arguments).
struct BackwardOptions {
    // Keep the grads of intermediate variables (by default only leaves get one).
    bool retain_grad = false;
    // Record the graph of the backward computation itself, so the grads can be
    // differentiated again (double backprop).
    bool enable_double_backprop = false;
    // Scales the implicit seed of a scalar output; leaves remember the scale so an
    // optimizer can undo it.
    std::optional<double> loss_scale{};
};

class Variable {
public:
    Variable() = default;  // undefined: holds nothing (Chainer's None)
    // A leaf variable over `array` (aliased, not copied).
    explicit Variable(Array array, bool requires_grad = true, std::string name = {});
    // A defined variable whose array is not set yet (an uninitialised links::Parameter):
    // array() is an undefined Array until set_array() gives it one.
    [[nodiscard]] static Variable without_array(bool requires_grad = true, std::string name = {});

    bool defined() const { return data_ != nullptr; }

    // --- Data. Every accessor below throws ValueError on an undefined Variable.
    const Array& array() const;
    // Replaces the array (Chainer's `array` setter); the node's metadata follows.
    void set_array(Array array) const;
    const Shape& shape() const { return array().shape(); }
    Dtype dtype() const { return array().dtype(); }
    Device device() const { return array().device(); }
    int ndim() const { return array().ndim(); }
    int64_t size() const { return array().size(); }
    // The single element of a size-1 (usually 0-d) variable; throws ValueError otherwise.
    template <class T = double>
    T item() const {
        return array().item<T>();
    }

    // --- Gradient. grad() is an undefined Array when there is none.
    Array grad() const;
    const Variable& grad_var() const;
    // Sets the gradient; throws DimensionError/DtypeError when it does not match the array.
    void set_grad(const Array& grad) const;
    void set_grad_var(const Variable& grad) const;
    void cleargrad() const;  // grad = None
    // Chainer's retain_data: the node keeps the array, so node().retained_data() (Python's
    // node.data) still has it after this variable is gone.
    void retain_data() const;
    void zerograd() const;  // grad = zeros of the array's shape and dtype
    // The loss scale of the last backward that set this variable's grad.
    std::optional<double> loss_scale() const;

    // --- Gradient destination. See Note [Gradient destinations] in autograd/backward.cc.
    // Where backward() stores this leaf's grad: an array of the variable's shape, dtype and
    // device (a view into a gradient bucket, say) that backward() fills and makes the grad,
    // instead of the array it computed. The grad then aliases it, and the next backward()
    // writes it again. An undefined array (the default) turns it off. Throws
    // DimensionError/DtypeError/DeviceError when it does not match the variable's array.
    void set_grad_destination(const Array& destination) const;
    const Array& grad_destination() const;

    // --- Graph.
    bool requires_grad() const;
    const std::string& name() const;
    void set_name(std::string name) const;
    const std::shared_ptr<VariableNode>& node() const;
    // The function that produced this variable; null for a leaf.
    const std::shared_ptr<FunctionNode>& creator() const;
    int64_t rank() const;
    // Forgets the creator: this variable becomes a leaf. The graph behind it is
    // freed when nothing else holds it.
    void unchain() const;
    // Unchains every function reachable backward from this variable (iteratively).
    void unchain_backward() const;
    // Backprop from this variable: the seed is its grad, or 1 (times loss_scale) when it
    // has none and holds one element; throws ValueError otherwise.
    void backward(const BackwardOptions& options = {}) const;
    // Moves the array and the grad to `device` in place (no-op when already there).
    void to_device(Device device) const;

    // Identity (Chainer's `is`): two handles on the same variable.
    friend bool operator==(const Variable& a, const Variable& b) { return a.data_ == b.data_; }

private:
    friend class VariableNode;
    friend class FunctionNode;
    friend class detail::BackpropEngine;
    explicit Variable(std::shared_ptr<VariableData> data) : data_{std::move(data)} {}
    // An output of a function that recorded no graph: its node is made when first asked
    // for. See Note [Lazy variable nodes] in variable.cc.
    static Variable without_node(Array array, bool requires_grad);
    VariableData& data() const;

    std::shared_ptr<VariableData> data_;
};

class VariableNode : public std::enable_shared_from_this<VariableNode> {
public:
    VariableNode(const Array& array, bool requires_grad, std::string name);
    ~VariableNode();
    VariableNode(const VariableNode&) = delete;
    VariableNode& operator=(const VariableNode&) = delete;

    const Shape& shape() const { return shape_; }
    Dtype dtype() const { return dtype_; }
    Device device() const { return device_; }
    bool requires_grad() const { return requires_grad_; }
    const std::string& name() const { return name_; }
    const std::shared_ptr<FunctionNode>& creator() const { return creator_; }
    // 0 for a leaf, the creator's rank + 1 otherwise. See Note [Rank ordering].
    int64_t rank() const { return rank_; }
    // The array kept by a function that retained this node (undefined otherwise).
    const Array& retained_data() const { return retained_data_; }

    // The variable of this node when it is still alive, else an undefined Variable.
    Variable get_variable_or_none() const;
    // The variable of this node; when it is gone, a new one over `fallback` (or the
    // retained data) that shares this node and so stays connected to the graph.
    Variable get_variable(const Array& fallback = {});

    // Number of VariableNodes alive in the process (for tests of graph release).
    static int64_t live_count();

private:
    friend class Variable;
    friend class FunctionNode;
    friend class detail::BackpropEngine;
    void set_creator(std::shared_ptr<FunctionNode> creator);
    void update_data_info(const Array& array);

    std::weak_ptr<VariableData> variable_;
    std::shared_ptr<FunctionNode> creator_;
    // The grad accumulated for this node by the backprop engine `grad_owner_` while it runs.
    // See Note [Gradient slots] in backward.cc.
    mutable Variable grad_in_flight_;
    mutable const void* grad_owner_ = nullptr;
    int64_t rank_ = 0;
    Shape shape_;
    Dtype dtype_;
    Device device_;
    bool requires_grad_;
    std::string name_;
    Array retained_data_;
};

// The shared state behind Variable handles.
struct VariableData {
    Array array;
    Variable grad;  // undefined when there is none
    // Null until needed for an output of a function that recorded no graph (Note [Lazy
    // variable nodes] in variable.cc); `requires_grad` is its flag until then.
    std::shared_ptr<VariableNode> node;
    bool requires_grad = true;
    std::optional<double> loss_scale{};
    Array grad_destination;  // undefined unless set_grad_destination
};

// Chainer's as_array: the array of a variable (aliased).
[[nodiscard]] inline Array as_array(const Variable& x) { return x.array(); }
// Chainer's as_variable: a leaf that does not require grad, over the array (aliased).
[[nodiscard]] inline Variable as_variable(const Array& x) { return Variable(x, false); }

// Backprop from several outputs at once (chainer.backward). grad_outputs[i] seeds
// outputs[i]; when grad_outputs is empty each output's own grad is used, or 1 for an
// output of one element. Throws ValueError for a non-scalar output without a seed and
// DimensionError/DtypeError for a seed that does not match its output.
void backward(const std::vector<Variable>& outputs, const std::vector<Variable>& grad_outputs = {},
              const BackwardOptions& options = {});

}  // namespace rensa
