// concat, stack, hstack, vstack: one Concat node whose backward splits the gradient.

#include <memory>

#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

class Concat : public FunctionNode {
public:
    explicit Concat(int axis) : axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::concatenate(xs, axis_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        std::vector<int64_t> indices;
        int64_t end = 0;
        for (size_t i = 0; i + 1 < inputs().size(); ++i) {
            end += input_shape(static_cast<int>(i))[axis_];
            indices.push_back(end);
        }
        return split_axis(gys[0], indices, axis_);
    }
    std::string label() const override { return "Concat"; }
    Attributes attributes() const override { return {{"axis", int64_t{axis_}}}; }

private:
    int axis_;
};

// Chainer's checks: one dtype, one ndim, equal shapes except on `axis`.
int check_concat(const std::vector<Variable>& xs, int axis) {
    array_detail::check_nonempty_same_dtype("concat", xs);
    const Shape& first = xs[0].shape();
    RENSA_CHECK(first.size() > 0, DimensionError, "concat: Expect: xs[0].ndim > 0, Actual: 0 (0-d inputs)");
    RENSA_CHECK(axis >= -first.size() && axis < first.size(), DimensionError, "concat: Expect: -", first.size(),
                " <= axis < ", first.size(), " (xs[0].ndim), Actual: axis = ", axis);
    const int a = axis < 0 ? axis + first.size() : axis;
    for (size_t i = 1; i < xs.size(); ++i) {
        const Shape& s = xs[i].shape();
        RENSA_CHECK(s.size() == first.size(), DimensionError, "concat: Expect: xs[", i,
                    "].ndim == xs[0].ndim, Actual: ", s.size(), " != ", first.size());
        for (int d = 0; d < s.size(); ++d) {
            RENSA_CHECK(d == a || s[d] == first[d], DimensionError, "concat: Expect: xs[", i, "].shape[", d,
                        "] == xs[0].shape[", d, "], Actual: ", s[d], " != ", first[d], " (shapes ", s, " and ", first,
                        ", axis ", a, ")");
        }
    }
    return a;
}

// numpy.atleast_1d / atleast_2d (shapes as numpy pads them).
Variable at_least(const Variable& x, int ndim) {
    if (x.ndim() >= ndim) return x;
    if (x.ndim() == 0) return reshape(x, Shape(ndim, 1));
    return reshape(x, {1, x.shape()[0]});  // 1-d to 2-d
}

}  // namespace

Variable concat(const std::vector<Variable>& xs, int axis) {
    const int a = check_concat(xs, axis);
    return std::make_shared<Concat>(a)->apply(xs)[0];
}

Variable stack(const std::vector<Variable>& xs, int axis) {
    array_detail::check_nonempty_same_dtype("stack", xs);
    const int ndim = xs[0].ndim();
    RENSA_CHECK(axis >= -ndim - 1 && axis <= ndim, DimensionError, "stack: Expect: -", ndim + 1, " <= axis <= ", ndim,
                " (xs[0].ndim), Actual: axis = ", axis);
    for (size_t i = 1; i < xs.size(); ++i) {
        RENSA_CHECK(xs[i].shape() == xs[0].shape(), DimensionError, "stack: Expect: xs[", i,
                    "].shape == xs[0].shape, Actual: ", xs[i].shape(), " != ", xs[0].shape());
    }
    std::vector<Variable> expanded;
    for (const Variable& x : xs) expanded.push_back(expand_dims(x, axis));
    return concat(expanded, axis < 0 ? axis + ndim + 1 : axis);
}

Variable hstack(const std::vector<Variable>& xs) {
    array_detail::check_nonempty_same_dtype("hstack", xs);
    std::vector<Variable> parts;
    for (const Variable& x : xs) parts.push_back(at_least(x, 1));
    return concat(parts, parts[0].ndim() == 1 ? 0 : 1);
}

Variable vstack(const std::vector<Variable>& xs) {
    array_detail::check_nonempty_same_dtype("vstack", xs);
    std::vector<Variable> parts;
    for (const Variable& x : xs) parts.push_back(at_least(x, 2));
    return concat(parts, 0);
}

}  // namespace rensa::functions
