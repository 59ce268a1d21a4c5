#pragma once
// FunctionNode: one differentiable operation in the graph (Chainer's FunctionNode).
//
// A subclass implements `forward` on Arrays (through core/ops) and `backward` on
// Variables built from differentiable functions, so that running backward with
// backprop enabled records its graph too: double backprop needs nothing extra.
// `apply` runs forward and links the graph only when backprop is enabled and some
// input requires grad. A node holds its input nodes strongly and its outputs weakly,
// and keeps only the arrays it asked to retain.
//
//   class Square : public FunctionNode {
//       std::vector<Array> forward(const std::vector<Array>& xs) override {
//           retain_inputs({0});
//           return {ops::square(xs[0])};
//       }
//       std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
//           return {2.0 * retained_input(0) * gys[0]};
//       }
//   };
//   Variable y = std::make_shared<Square>()->apply({x})[0];

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "autograd/variable.h"
#include "core/array.h"

namespace rensa {

class FunctionNode : public std::enable_shared_from_this<FunctionNode> {
public:
    using Indexes = std::vector<int>;
    // One non-array parameter of a function (an axis, a stride, a slope...).
    using AttributeValue = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;
    using Attributes = std::vector<std::pair<std::string, AttributeValue>>;

    FunctionNode();
    virtual ~FunctionNode();
    FunctionNode(const FunctionNode&) = delete;
    FunctionNode& operator=(const FunctionNode&) = delete;

    // Runs forward on the inputs' arrays and wraps the results in Variables; records
    // the graph when backprop is enabled and some input requires grad. A node can be
    // applied once. Throws ValueError for undefined inputs or a forward that returns
    // no (or undefined) arrays, and in debug mode when an output holds NaN or Inf.
    std::vector<Variable> apply(const std::vector<Variable>& inputs);
    // The same without building a vector of the inputs (`node->apply({x, y})`).
    std::vector<Variable> apply(std::initializer_list<Variable> inputs);

    // Computes the outputs; may call retain_inputs / retain_outputs.
    virtual std::vector<Array> forward(const std::vector<Array>& inputs) = 0;
    // Gradients of the inputs listed in `target_input_indexes` (ascending), one per index
    // (or one per input), from the gradients of the outputs. grad_outputs[i] is an
    // undefined Variable when output i received no gradient. An undefined result means
    // a zero gradient.
    virtual std::vector<Variable> backward(const Indexes& target_input_indexes,
                                           const std::vector<Variable>& grad_outputs) = 0;
    // The name in error messages, hooks and graph dumps: the class name by default.
    virtual std::string label() const;
    // The function's non-array parameters, by Chainer's argument names (e.g. "stride",
    // "pad", "axis"), in a fixed order: for export (rensa.onnx) and graph dumps. Empty
    // for a function without any. See Note [ONNX recording] in autograd/function_hook.h.
    virtual Attributes attributes() const { return {}; }

    // Input nodes (empty once unchained) and output nodes (expired when dropped).
    const std::vector<std::shared_ptr<VariableNode>>& inputs() const { return inputs_; }
    const std::vector<std::weak_ptr<VariableNode>>& outputs() const { return outputs_; }
    // The largest rank of the inputs. See Note [Rank ordering].
    int64_t rank() const { return rank_; }
    // Cuts the node out of the graph: its outputs forget their creator, it forgets its inputs.
    void unchain();

    // Number of FunctionNodes alive in the process (for tests of graph release).
    static int64_t live_count();

protected:
    // The argument of retain_inputs / retain_outputs: a braced list (`retain_inputs({0, 1})`)
    // or a vector of indexes, read at once (nothing is allocated for a braced list).
    class IndexList {
    public:
        IndexList(std::initializer_list<int> indexes)  // NOLINT(google-explicit-constructor)
            : begin_{indexes.begin()}, end_{indexes.end()} {}
        IndexList(const Indexes& indexes)  // NOLINT(google-explicit-constructor)
            : begin_{indexes.data()}, end_{indexes.data() + indexes.size()} {}
        const int* begin() const { return begin_; }
        const int* end() const { return end_; }

    private:
        const int* begin_;
        const int* end_;
    };
    // Keep these inputs / outputs for backward (call from forward). Only retained arrays
    // are kept alive by the graph.
    void retain_inputs(IndexList indexes) { retained_inputs_.assign(indexes); }
    void retain_outputs(IndexList indexes) { retained_outputs_.assign(indexes); }
    // A retained input or output (by its index among the inputs / outputs) as a
    // Variable connected to the graph, so backward can differentiate through it.
    // Throws ValueError when it was not retained.
    Variable retained_input(int index) const;
    Variable retained_output(int index);
    // Inside backward(): an array input `index`'s gradient may be written into (of that
    // input's shape, dtype and device, contiguous or not), else an undefined Array. A
    // backward that writes the gradient there returns it, and nothing is copied later.
    // See Note [Gradient destinations] in autograd/backward.cc.
    static const Array& grad_destination(int index);
    // Shape and dtype of input `index` (always known, retained or not).
    const Shape& input_shape(int index) const { return inputs_.at(static_cast<size_t>(index))->shape(); }
    Dtype input_dtype(int index) const { return inputs_.at(static_cast<size_t>(index))->dtype(); }

private:
    // Note [Retained index sets]: the indexes given to retain_inputs / retain_outputs, as a
    // bit mask for 0..63 (every function in practice: no allocation per node) and a list
    // for any other (out-of-range ones are reported when the node is linked).
    class IndexSet {
    public:
        void assign(const IndexList& indexes);
        bool contains(int index) const;
        bool empty() const { return low_ == 0 && other_.empty(); }
        // Calls f(index) for each index: the masked ones ascending, then the others.
        template <class F>
        void for_each(F&& f) const {
            for (uint64_t bits = low_; bits != 0; bits &= bits - 1) f(__builtin_ctzll(bits));
            for (int i : other_) f(i);
        }

    private:
        uint64_t low_ = 0;
        std::vector<int> other_;
    };

    std::vector<Variable> apply_to(const Variable* inputs, size_t n_inputs);
    void check_forward_outputs(const std::vector<Array>& outputs) const;
    void link(const Variable* inputs, size_t n_inputs, const std::vector<Variable>& outputs);

    std::vector<std::shared_ptr<VariableNode>> inputs_;
    std::vector<std::weak_ptr<VariableNode>> outputs_;
    IndexSet retained_inputs_;
    IndexSet retained_outputs_;
    std::vector<Array> retained_output_data_;  // by output index once linked, when outputs are retained
    int64_t rank_ = 0;
    bool applied_ = false;
};

namespace detail {
// See Note [Iterative graph release] (variable.cc).
void release_function(std::shared_ptr<FunctionNode>&& function);
// Throws ValueError naming `function` and the phase when `a` holds NaN or Inf.
void check_finite(const Array& a, const FunctionNode& function, const char* phase);
}  // namespace detail

}  // namespace rensa
