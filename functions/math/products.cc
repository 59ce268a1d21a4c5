// matmul, batch_matmul and tensordot, all through core's GEMM (ops::matmul).

#include <algorithm>
#include <memory>
#include <numeric>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/linalg.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

// The last two axes swapped (a view).
Array swap_last(const Array& a) { return a.swapaxes(a.ndim() - 2, a.ndim() - 1); }

// op(a) @ op(b) for operands of at least 2 dimensions, batch axes broadcasting.
// d/da = gy @ op(b)^T, d/db = op(a)^T @ gy (transposed back when op transposes), each
// summed to its input's shape over broadcast batch axes.
class MatMul : public FunctionNode {
public:
    MatMul(bool transa, bool transb) : transa_{transa}, transb_{transb} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::matmul(transa_ ? swap_last(xs[0]) : xs[0], transb_ ? swap_last(xs[1]) : xs[1])};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Variable a = retained_input(0), b = retained_input(1), gy = gys[0];
        std::vector<Variable> gxs;
        for (int i : targets) {
            Variable g;
            if (i == 0) g = transa_ ? matmul(b, gy, transb_, true) : matmul(gy, b, false, !transb_);
            if (i == 1) g = transb_ ? matmul(gy, a, true, transa_) : matmul(a, gy, !transa_, false);
            gxs.push_back(sum_to(g, input_shape(i)));
        }
        return gxs;
    }
    std::string label() const override { return "MatMul"; }
    Attributes attributes() const override { return {{"transa", transa_}, {"transb", transb_}}; }

private:
    bool transa_, transb_;
};

int64_t dim(const Shape& shape, int axis) { return shape[axis < 0 ? shape.size() + axis : axis]; }

Shape leading(const Shape& shape, int count) { return Shape(shape.begin(), shape.begin() + count); }

}  // namespace

Variable matmul(const Variable& a, const Variable& b, bool transa, bool transb) {
    expect_same_float(a, b, "matmul", "a", "b");
    RENSA_CHECK(a.ndim() >= 1 && b.ndim() >= 1, DimensionError,
                "matmul: Expect: a.ndim >= 1 and b.ndim >= 1, Actual: ", a.ndim(), ", ", b.ndim());
    // 1-D operands become a row (a) or a column (b); the added axis is dropped at the end.
    const Variable a2 = a.ndim() == 1 ? reshape(a, {1, a.shape()[0]}) : a;
    const Variable b2 = b.ndim() == 1 ? reshape(b, {b.shape()[0], 1}) : b;
    const bool ta = transa && a.ndim() > 1, tb = transb && b.ndim() > 1;
    const int64_t ka = dim(a2.shape(), ta ? -2 : -1), kb = dim(b2.shape(), tb ? -1 : -2);
    RENSA_CHECK(ka == kb, DimensionError, "matmul: Expect: contracted dimensions of a", a.shape(),
                (ta ? " (transposed)" : ""), " and b", b.shape(), (tb ? " (transposed)" : ""),
                " to match, Actual: ", ka, " != ", kb);
    const Shape batch =
        broadcast_shapes(leading(a2.shape(), a2.ndim() - 2), leading(b2.shape(), b2.ndim() - 2), "matmul");
    Variable y = math_detail::apply1<MatMul>({a2, b2}, ta, tb);
    if (a.ndim() > 1 && b.ndim() > 1) return y;
    Shape result = batch;
    if (a.ndim() > 1) result.push_back(dim(y.shape(), -2));
    if (b.ndim() > 1) result.push_back(dim(y.shape(), -1));
    return reshape(y, result);
}

Variable batch_matmul(const Variable& a, const Variable& b, bool transa, bool transb) {
    expect_same_float(a, b, "batch_matmul", "a", "b");
    RENSA_CHECK(a.ndim() >= 2 && b.ndim() >= 2, DimensionError,
                "batch_matmul: Expect: a.ndim >= 2 and b.ndim >= 2, Actual: ", a.ndim(), ", ", b.ndim());
    RENSA_CHECK(a.shape()[0] == b.shape()[0], DimensionError,
                "batch_matmul: Expect: a.shape[0] == b.shape[0], Actual: ", a.shape()[0], " != ", b.shape()[0]);
    const auto as_3d = [](const Variable& x) {
        int64_t rest = 1;
        for (int d = 2; d < x.ndim(); ++d) rest *= x.shape()[d];
        return reshape(x, {x.shape()[0], x.shape()[1], rest});
    };
    return matmul(as_3d(a), as_3d(b), transa, transb);
}

Variable tensordot(const Variable& a, const Variable& b, int axes) {
    RENSA_CHECK(axes >= 0 && axes <= a.ndim() && axes <= b.ndim(), DimensionError, "tensordot: axes=", axes,
                " exceeds the operands' dimensions (a.ndim=", a.ndim(), ", b.ndim=", b.ndim(), ")");
    Axes a_axes, b_axes;
    for (int i = 0; i < axes; ++i) {
        a_axes.push_back(a.ndim() - axes + i);
        b_axes.push_back(i);
    }
    return tensordot(a, b, a_axes, b_axes);
}

Variable tensordot(const Variable& a, const Variable& b, const Axes& a_axes, const Axes& b_axes) {
    expect_same_float(a, b, "tensordot", "a", "b");
    RENSA_CHECK(a_axes.size() == b_axes.size(), DimensionError, "tensordot: a_axes ", a_axes, " and b_axes ", b_axes,
                " must have the same length");
    const Axes ca = normalize_axes(a_axes, a.ndim(), "tensordot"), cb = normalize_axes(b_axes, b.ndim(), "tensordot");
    int64_t k = 1;
    for (int i = 0; i < ca.size(); ++i) {
        RENSA_CHECK(a.shape()[ca[i]] == b.shape()[cb[i]], DimensionError, "tensordot: shape mismatch: a.shape[", ca[i],
                    "]=", a.shape()[ca[i]], " != b.shape[", cb[i], "]=", b.shape()[cb[i]]);
        k *= a.shape()[ca[i]];
    }
    // a -> (free_a, contracted) as (M, K); b -> (contracted, free_b) as (K, N).
    Axes perm_a, perm_b = cb;
    Shape out;
    int64_t m = 1, n = 1;
    for (int d = 0; d < a.ndim(); ++d) {
        if (std::find(ca.begin(), ca.end(), d) != ca.end()) continue;
        perm_a.push_back(d);
        out.push_back(a.shape()[d]);
        m *= a.shape()[d];
    }
    for (int d : ca) perm_a.push_back(d);
    for (int d = 0; d < b.ndim(); ++d) {
        if (std::find(cb.begin(), cb.end(), d) != cb.end()) continue;
        perm_b.push_back(d);
        out.push_back(b.shape()[d]);
        n *= b.shape()[d];
    }
    const Variable a2 = reshape(functions::transpose(a, perm_a), {m, k});
    const Variable b2 = reshape(functions::transpose(b, perm_b), {k, n});
    return reshape(matmul(a2, b2), out);
}

}  // namespace rensa::functions
