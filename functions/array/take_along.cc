// Gather / scatter-add along an axis and basic indexing / its backward: pairs of nodes
// where each is the other's backward, so every order of derivative is available.

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "functions/array/detail.h"

namespace rensa::functions::array_detail {
namespace {

class TakeAlong : public FunctionNode {
public:
    TakeAlong(Array indices, int axis) : indices_{std::move(indices)}, axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::take(xs[0], indices_, axis_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {scatter_along(gys[0], indices_, axis_, input_shape(0))};
    }
    std::string label() const override { return "TakeAlong"; }

private:
    Array indices_;
    int axis_;
};

class ScatterAlong : public FunctionNode {
public:
    ScatterAlong(Array indices, int axis, Shape shape)
        : indices_{std::move(indices)}, axis_{axis}, shape_{std::move(shape)} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        const Array out = ops::zeros(shape_, gys[0].dtype(), gys[0].device());
        ops::scatter_add(out, indices_, gys[0], axis_);
        return {out};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {take_along(ggs[0], indices_, axis_)};
    }
    std::string label() const override { return "ScatterAlong"; }

private:
    Array indices_;
    int axis_;
    Shape shape_;
};

std::string index_text(const std::vector<Index>& index) {
    std::string text;
    for (const Index& term : index) {
        if (!text.empty()) text += ", ";
        if (const auto* i = std::get_if<int64_t>(&term)) {
            text += std::to_string(*i);
        } else if (const auto* s = std::get_if<Slice>(&term)) {
            if (s->start) text += std::to_string(*s->start);
            text += ':';
            if (s->stop) text += std::to_string(*s->stop);
            if (s->step != 1) text += ':' + std::to_string(s->step);
        } else if (std::holds_alternative<NewAxis>(term)) {
            text += "None";
        } else {
            text += "...";
        }
    }
    return text;
}

class BasicIndexGrad;

class BasicIndex : public FunctionNode {
public:
    explicit BasicIndex(std::vector<Index> index) : index_{std::move(index)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0].index(index_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "GetItem"; }
    // The index in numpy's notation, as Chainer's GetItem shows its slices: "1, 2:8:2, None, ...".
    Attributes attributes() const override { return {{"slices", index_text(index_)}}; }

private:
    std::vector<Index> index_;
};

// zeros(shape) with gy written into the view zeros.index(index): basic views never repeat
// an element, so a plain copy is the adjoint of the view.
class BasicIndexGrad : public FunctionNode {
public:
    BasicIndexGrad(std::vector<Index> index, Shape shape) : index_{std::move(index)}, shape_{std::move(shape)} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        const Array out = ops::zeros(shape_, gys[0].dtype(), gys[0].device());
        out.index(index_).assign(gys[0]);
        return {out};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {basic_index(ggs[0], index_)};
    }
    std::string label() const override { return "GetItemGrad"; }

private:
    std::vector<Index> index_;
    Shape shape_;
};

std::vector<Variable> BasicIndex::backward(const Indexes&, const std::vector<Variable>& gys) {
    return {basic_index_grad(gys[0], index_, input_shape(0))};
}

}  // namespace

Variable take_along(const Variable& x, const Array& indices, int axis) {
    return std::make_shared<TakeAlong>(indices, axis)->apply({x})[0];
}

Variable scatter_along(const Variable& gy, const Array& indices, int axis, const Shape& shape) {
    return std::make_shared<ScatterAlong>(indices, axis, shape)->apply({gy})[0];
}

Variable basic_index(const Variable& x, const std::vector<Index>& index) {
    return std::make_shared<BasicIndex>(index)->apply({x})[0];
}

Variable basic_index_grad(const Variable& gy, const std::vector<Index>& index, const Shape& shape) {
    return std::make_shared<BasicIndexGrad>(index, shape)->apply({gy})[0];
}

Variable zeros(const Shape& shape, Dtype dtype, Device device) {
    return Variable(ops::zeros(shape, dtype, device), /*requires_grad=*/false);
}

Variable or_zeros(const Variable& gy, const Shape& shape, Dtype dtype, Device device) {
    return gy.defined() ? gy : zeros(shape, dtype, device);
}

void check_nonempty_same_dtype(std::string_view op, const std::vector<Variable>& xs) {
    RENSA_CHECK(!xs.empty(), ValueError, op, ": Expect: a non-empty xs, Actual: no Variables");
    for (size_t i = 0; i < xs.size(); ++i) {
        // The name is built only on failure: concat runs this on every call.
        if (!xs[i].defined() || xs[i].dtype() != xs[0].dtype()) {
            expect_same_dtype(xs[0], xs[i], op, "xs[0]", "xs[" + std::to_string(i) + "]");
        }
    }
}

}  // namespace rensa::functions::array_detail
