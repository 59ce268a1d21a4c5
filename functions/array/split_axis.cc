// split_axis and separate: outputs are views of x; the backward joins the gradients
// (zeros for pieces that got none) with concat / stack.

#include <memory>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

// The gradients of every output, zeros standing in for the missing ones.
std::vector<Variable> filled(const std::vector<Variable>& gys, Dtype dtype, Device device,
                             const std::vector<Shape>& shapes) {
    std::vector<Variable> out;
    for (size_t i = 0; i < gys.size(); ++i) out.push_back(array_detail::or_zeros(gys[i], shapes[i], dtype, device));
    return out;
}

class SplitAxis : public FunctionNode {
public:
    SplitAxis(std::vector<int64_t> indices, int axis) : indices_{std::move(indices)}, axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        std::vector<Array> ys = ops::split(xs[0], indices_, axis_);
        for (const Array& y : ys) shapes_.push_back(y.shape());
        return ys;
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {concat(filled(gys, input_dtype(0), inputs()[0]->device(), shapes_), axis_)};
    }
    std::string label() const override { return "SplitAxis"; }
    Attributes attributes() const override { return {{"indices_or_sections", indices_}, {"axis", int64_t{axis_}}}; }

private:
    std::vector<int64_t> indices_;
    int axis_;
    std::vector<Shape> shapes_;
};

class Separate : public FunctionNode {
public:
    explicit Separate(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        std::vector<Array> ys;
        std::vector<Index> index(static_cast<size_t>(axis_), Slice{});
        index.emplace_back(int64_t{0});
        for (int64_t i = 0; i < xs[0].shape()[axis_]; ++i) {
            index.back() = i;
            ys.push_back(xs[0].index(index));
        }
        return ys;
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        Shape shape = input_shape(0);
        shape.erase(axis_);
        const std::vector<Shape> shapes(gys.size(), shape);
        return {stack(filled(gys, input_dtype(0), inputs()[0]->device(), shapes), axis_)};
    }
    std::string label() const override { return "Separate"; }
    Attributes attributes() const override { return {{"axis", int64_t{axis_}}}; }

private:
    int axis_;
};

int check_axis(std::string_view op, const Variable& x, int axis) {
    expect_defined(x, op, "x");
    const int ndim = x.ndim();
    RENSA_CHECK(axis >= -ndim && axis < ndim, DimensionError, op, ": Expect: -", ndim, " <= axis < ", ndim,
                " (x.ndim), Actual: axis = ", axis, " for x of shape ", x.shape());
    return axis < 0 ? axis + ndim : axis;
}

}  // namespace

std::vector<Variable> split_axis_sections(const Variable& x, int64_t sections, int axis) {
    const int a = check_axis("split_axis", x, axis);
    const int64_t n = x.shape()[a];
    RENSA_CHECK(sections > 0, ValueError, "split_axis: sections must be positive, got ", sections);
    RENSA_CHECK(n % sections == 0, ValueError, "split_axis: array split does not result in an equal division: x.shape[",
                a, "] = ", n, " into ", sections, " sections");
    std::vector<int64_t> indices;
    for (int64_t i = 1; i < sections; ++i) indices.push_back(i * (n / sections));
    return std::make_shared<SplitAxis>(indices, a)->apply({x});
}

std::vector<Variable> split_axis(const Variable& x, const std::vector<int64_t>& indices, int axis) {
    const int a = check_axis("split_axis", x, axis);
    const int64_t n = x.shape()[a];
    int64_t previous = 0;
    for (size_t i = 0; i < indices.size(); ++i) {
        RENSA_CHECK(indices[i] >= previous && indices[i] <= n, ValueError, "split_axis: indices[", i,
                    "] = ", indices[i], " is out of order or outside [0, ", n, "] (x.shape[", a,
                    "]); indices must be sorted");
        previous = indices[i];
    }
    return std::make_shared<SplitAxis>(indices, a)->apply({x});
}

std::vector<Variable> separate(const Variable& x, int axis) {
    const int a = check_axis("separate", x, axis);
    if (x.shape()[a] == 0) return {};
    return std::make_shared<Separate>(a)->apply({x});
}

}  // namespace rensa::functions
