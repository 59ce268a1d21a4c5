// diagonal: numpy's x.diagonal(offset, axis1, axis2) as a view; its backward writes gy
// into the diagonal of zeros, whose backward is diagonal again.

#include <algorithm>
#include <memory>
#include <string>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/array.h"

namespace rensa::functions {
namespace {

// The view of x's diagonal: the other axes in order, then the diagonal (numpy's layout).
Array diagonal_view(const Array& x, int64_t offset, int axis1, int axis2) {
    const int64_t n1 = x.shape()[axis1], n2 = x.shape()[axis2];
    const int64_t start1 = offset < 0 ? -offset : 0, start2 = offset > 0 ? offset : 0;
    const int64_t length = std::max<int64_t>(0, std::min(n1 - start1, n2 - start2));
    Shape shape;
    Strides strides;
    for (int d = 0; d < x.ndim(); ++d) {
        if (d != axis1 && d != axis2) {
            shape.push_back(x.shape()[d]);
            strides.push_back(x.strides()[d]);
        }
    }
    shape.push_back(length);
    strides.push_back(x.strides()[axis1] + x.strides()[axis2]);
    const int64_t begin = length > 0 ? start1 * x.strides()[axis1] + start2 * x.strides()[axis2] : 0;
    return Array(x.storage(), shape, strides, x.offset() + begin, x.dtype());
}

class Diagonal : public FunctionNode {
public:
    Diagonal(int64_t offset, int axis1, int axis2) : offset_{offset}, axis1_{axis1}, axis2_{axis2} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        return {diagonal_view(xs[0], offset_, axis1_, axis2_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "Diagonal"; }

private:
    int64_t offset_;
    int axis1_, axis2_;
};

class DiagonalGrad : public FunctionNode {
public:
    DiagonalGrad(Shape shape, int64_t offset, int axis1, int axis2)
        : shape_{std::move(shape)}, offset_{offset}, axis1_{axis1}, axis2_{axis2} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        const Array out = ops::zeros(shape_, gys[0].dtype(), gys[0].device());
        diagonal_view(out, offset_, axis1_, axis2_).assign(gys[0]);
        return {out};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {std::make_shared<Diagonal>(offset_, axis1_, axis2_)->apply({ggs[0]})[0]};
    }
    std::string label() const override { return "DiagonalGrad"; }

private:
    Shape shape_;
    int64_t offset_;
    int axis1_, axis2_;
};

std::vector<Variable> Diagonal::backward(const Indexes&, const std::vector<Variable>& gys) {
    return {std::make_shared<DiagonalGrad>(input_shape(0), offset_, axis1_, axis2_)->apply({gys[0]})[0]};
}

}  // namespace

Variable diagonal(const Variable& x, int64_t offset, int axis1, int axis2) {
    expect_defined(x, "diagonal", "x");
    RENSA_CHECK(x.ndim() >= 2, DimensionError, "diagonal: Expect: x.ndim >= 2, Actual: ", x.ndim());
    const int a1 = normalize_axis(axis1, x.ndim(), "diagonal");
    const int a2 = normalize_axis(axis2, x.ndim(), "diagonal");
    RENSA_CHECK(a1 != a2, ValueError, "diagonal: axis1 and axis2 cannot be the same, Actual: axis1 = ", axis1,
                ", axis2 = ", axis2);
    return std::make_shared<Diagonal>(offset, a1, a2)->apply({x})[0];
}

}  // namespace rensa::functions
