// lstm: Chainer's LSTM cell as a composition of differentiable pieces, with two private
// nodes (split along an axis, and its inverse concat) that cut the gates out of x and
// the rows of c_prev beyond x's batch.

#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/manipulation.h"
#include "functions/activation.h"
#include "functions/activation/detail.h"

namespace rensa::functions {
namespace {

// Concatenation along `axis`; backward splits the gradient at the same places.
class ConcatAxis : public FunctionNode {
public:
    explicit ConcatAxis(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        for (const Array& x : xs) sizes_.push_back(x.shape()[axis_]);
        return {ops::concatenate(xs, axis_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "Concat"; }
    Attributes attributes() const override { return {{"axis", int64_t{axis_}}}; }

private:
    int axis_;
    std::vector<int64_t> sizes_;
};

// Pieces of `sizes` along `axis` (views); backward concatenates the gradients, with
// zeros for pieces that received none.
class SplitAxis : public FunctionNode {
public:
    SplitAxis(int axis, std::vector<int64_t> sizes, Device device)
        : axis_{axis}, sizes_{std::move(sizes)}, device_{device} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        std::vector<int64_t> cuts;
        for (size_t k = 0, at = 0; k + 1 < sizes_.size(); ++k) cuts.push_back(static_cast<int64_t>(at += sizes_[k]));
        return ops::split(xs[0], cuts, axis_);
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        std::vector<Variable> parts;
        for (size_t k = 0; k < gys.size(); ++k) {
            if (gys[k].defined()) {
                parts.push_back(gys[k]);
                continue;
            }
            Shape shape = input_shape(0);
            shape[axis_] = sizes_[k];
            parts.push_back(activation_detail::constant(ops::zeros(shape, input_dtype(0), device_)));
        }
        return std::make_shared<ConcatAxis>(axis_)->apply(parts);
    }
    std::string label() const override { return "SplitAxis"; }
    // The cut points, as split_axis's indices_or_sections.
    Attributes attributes() const override {
        std::vector<int64_t> indices;
        for (size_t k = 0, at = 0; k + 1 < sizes_.size(); ++k) indices.push_back(static_cast<int64_t>(at += sizes_[k]));
        return {{"indices_or_sections", std::move(indices)}, {"axis", int64_t{axis_}}};
    }

private:
    int axis_;
    std::vector<int64_t> sizes_;
    Device device_;  // of the input, for zero gradients
};

std::vector<Variable> split_axis(const Variable& x, int axis, std::vector<int64_t> sizes) {
    return std::make_shared<SplitAxis>(axis, std::move(sizes), x.device())->apply({x});
}

std::vector<Variable> ConcatAxis::backward(const Indexes&, const std::vector<Variable>& gys) {
    return split_axis(gys[0], axis_, sizes_);
}

// The gates a, i, f, o of x (batch, 4 * units, ...), interleaved as in Chainer.
std::vector<Variable> extract_gates(const Variable& x) {
    Shape shape{x.shape()[0], x.shape()[1] / 4, 4};
    Shape gate_shape{x.shape()[0], x.shape()[1] / 4};
    for (int d = 2; d < x.ndim(); ++d) {
        shape.push_back(x.shape()[d]);
        gate_shape.push_back(x.shape()[d]);
    }
    std::vector<Variable> gates = split_axis(reshape(x, shape), 2, {1, 1, 1, 1});
    for (Variable& g : gates) g = reshape(g, gate_shape);
    return gates;
}

void check_lstm(const Variable& c_prev, const Variable& x) {
    expect_float(c_prev, "lstm", "c_prev");
    expect_float(x, "lstm", "x");
    expect_same_dtype(c_prev, x, "lstm", "c_prev", "x");
    RENSA_CHECK(x.ndim() >= 2 && c_prev.ndim() == x.ndim(), DimensionError,
                "lstm: Expect: c_prev.ndim == x.ndim >= 2, Actual: c_prev.shape ", c_prev.shape(), ", x.shape ",
                x.shape());
    RENSA_CHECK(x.shape()[1] == 4 * c_prev.shape()[1], DimensionError,
                "lstm: Expect: x.shape[1] == 4 * c_prev.shape[1], Actual: x.shape ", x.shape(), ", c_prev.shape ",
                c_prev.shape());
    RENSA_CHECK(x.shape()[0] <= c_prev.shape()[0], DimensionError,
                "lstm: Expect: x.shape[0] <= c_prev.shape[0], Actual: ", x.shape()[0], " > ", c_prev.shape()[0]);
    for (int d = 2; d < x.ndim(); ++d) {
        RENSA_CHECK(x.shape()[d] == c_prev.shape()[d], DimensionError,
                    "lstm: Expect: x.shape[2:] == c_prev.shape[2:], Actual: x.shape ", x.shape(), ", c_prev.shape ",
                    c_prev.shape());
    }
}

}  // namespace

std::pair<Variable, Variable> lstm(const Variable& c_prev, const Variable& x) {
    check_lstm(c_prev, x);
    const std::vector<Variable> gates = extract_gates(x);
    const Variable a = tanh(gates[0]), i = sigmoid(gates[1]), f = sigmoid(gates[2]), o = sigmoid(gates[3]);
    const int64_t batch = x.shape()[0], rows = c_prev.shape()[0];
    if (batch == rows) {
        const Variable c = a * i + f * c_prev;
        return {c, o * tanh(c)};
    }
    const std::vector<Variable> parts = split_axis(c_prev, 0, {batch, rows - batch});
    const Variable c = a * i + f * parts[0];
    return {std::make_shared<ConcatAxis>(0)->apply({c, parts[1]})[0], o * tanh(c)};
}

}  // namespace rensa::functions
