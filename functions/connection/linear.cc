// linear: y = x W^T + b through the device's GEMM, reading W in place (transposed view).
// Its gradients are nodes of their own (LinearGradData, LinearGradWeight) whose backward
// is again linear or a grad node, so linear is differentiable any number of times.

#include <memory>
#include <utility>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/kernels.h"
#include "core/ops/creation.h"
#include "core/ops/linalg.h"
#include "functions/connection.h"

namespace rensa::functions {
namespace {

// Note [Linear as GEMMs only]: the bias is added by a rank-1 GEMM (ones(N, 1) @ b) into y
// before y += x @ W^T (beta = 1), and its gradient is ones(1, N) @ gy, so a training step
// of linear is nothing but BLAS calls: no elementwise OpenMP loop runs in between whose
// idle threads would spin on the cores BLAS's own threads need.
Array gemm_2d(const Array& a, const Array& b, const Array& out, double beta) {
    Kernels& kernels = global_context().kernels(out.device());
    const auto as_3d = [](const Array& m) { return m.reshape({1, m.shape()[0], m.shape()[1]}); };
    kernels.gemm({.a = as_3d(a), .b = as_3d(b), .out = as_3d(out), .beta = beta});
    return out;
}

// A gradient destination a 2-D GEMM can write into: contiguous (gemm_2d views it as 3-D).
bool writable_2d(const Array& out) { return out.defined() && out.ndim() == 2 && out.is_contiguous(); }

// y = x @ W^T (+ b): x (N, in), W (out, in), b (out,). See Note [Linear as GEMMs only].
class LinearFunction : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        const Array &x = xs[0], &W = xs[1];
        if (xs.size() == 2) return {ops::matmul(x, W.transpose())};
        const int64_t n = x.shape()[0], out = W.shape()[0];
        const Array y = Array::empty({n, out}, x.dtype(), x.device());
        gemm_2d(ops::ones({n, 1}, x.dtype(), x.device()), xs[2].reshape({1, out}), y, 0.0);
        return {gemm_2d(x, W.transpose(), y, 1.0)};
    }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& gys) override;
    std::string label() const override { return "LinearFunction"; }
};

// gx = gy @ W: inputs (W, gy).
class LinearGradData : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::matmul(xs[1], xs[0])};
    }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& gys) override;
    std::string label() const override { return "LinearGradData"; }
};

// gW = gy^T @ x: inputs (x, gy). Written into `out` when given (a gradient destination,
// see Note [Gradient destinations] in autograd/backward.cc).
class LinearGradWeight : public FunctionNode {
public:
    explicit LinearGradWeight(Array out = {}) : out_{std::move(out)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        if (writable_2d(out_)) return {gemm_2d(xs[1].transpose(), xs[0], out_, 0.0)};
        return {ops::matmul(xs[1].transpose(), xs[0])};
    }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& gys) override;
    std::string label() const override { return "LinearGradWeight"; }

private:
    Array out_;
};

// gb = sum(gy, axis=0) as ones(1, N) @ gy; its backward broadcasts ggb back over the rows.
// Written into `out` when given, as LinearGradWeight.
class LinearGradBias : public FunctionNode {
public:
    explicit LinearGradBias(Array out = {}) : out_{std::move(out)} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        const Array& gy = gys[0];
        const Array ones = ops::ones({1, gy.shape()[0]}, gy.dtype(), gy.device());
        if (out_.defined() && out_.is_contiguous()) {
            gemm_2d(ones, gy, out_.reshape({1, gy.shape()[1]}), 0.0);
            return {out_};
        }
        return {ops::matmul(ones, gy).reshape({gy.shape()[1]})};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {rensa::broadcast_to(rensa::reshape(ggs[0], {1, input_shape(0)[1]}), input_shape(0))};
    }
    std::string label() const override { return "LinearGradBias"; }

private:
    Array out_;
};

template <class Node, class... Args>
Variable apply_node(const std::vector<Variable>& inputs, Args&&... args) {
    return std::make_shared<Node>(std::forward<Args>(args)...)->apply(inputs)[0];
}

bool wants(const FunctionNode::Indexes& indexes, int i) {
    for (int j : indexes) {
        if (j == i) return true;
    }
    return false;
}

std::vector<Variable> LinearFunction::backward(const Indexes& indexes, const std::vector<Variable>& gys) {
    const Variable x = retained_input(0), W = retained_input(1);
    const Variable& gy = gys[0];
    std::vector<Variable> out;
    if (wants(indexes, 0)) out.push_back(apply_node<LinearGradData>({W, gy}));
    if (wants(indexes, 1)) out.push_back(apply_node<LinearGradWeight>({x, gy}, grad_destination(1)));
    if (wants(indexes, 2)) out.push_back(apply_node<LinearGradBias>({gy}, grad_destination(2)));
    return out;
}

// d<ggx, gy W>: gW = gy^T ggx, ggy = ggx W^T.
std::vector<Variable> LinearGradData::backward(const Indexes& indexes, const std::vector<Variable>& gys) {
    const Variable W = retained_input(0), gy = retained_input(1);
    const Variable& ggx = gys[0];
    std::vector<Variable> out;
    if (wants(indexes, 0)) out.push_back(apply_node<LinearGradWeight>({ggx, gy}));
    if (wants(indexes, 1)) out.push_back(apply_node<LinearFunction>({ggx, W}));
    return out;
}

// d<ggW, gy^T x>: gx = gy ggW, ggy = x ggW^T.
std::vector<Variable> LinearGradWeight::backward(const Indexes& indexes, const std::vector<Variable>& gys) {
    const Variable x = retained_input(0), gy = retained_input(1);
    const Variable& ggW = gys[0];
    std::vector<Variable> out;
    if (wants(indexes, 0)) out.push_back(apply_node<LinearGradData>({ggW, gy}));
    if (wants(indexes, 1)) out.push_back(apply_node<LinearFunction>({x, ggW}));
    return out;
}

void check_linear_types(const Variable& x, const Variable& W, const Variable& b) {
    expect_float(x, "linear", "x");
    expect_same_dtype(W, x, "linear", "W", "x");
    expect_ndim(x, 2, "linear", "x");
    expect_ndim(W, 2, "linear", "W");
    RENSA_CHECK(x.shape()[1] == W.shape()[1], DimensionError,
                "linear: Expect: x.shape[1] == W.shape[1], Actual: ", x.shape()[1], " != ", W.shape()[1],
                " (x.shape=", x.shape(), ", W.shape=", W.shape(), ")");
    RENSA_CHECK(W.device() == x.device(), DeviceError, "linear: x and W must be on one device, got ", x.device(),
                " and ", W.device());
    if (!b.defined()) return;
    expect_same_dtype(b, x, "linear", "b", "x");
    RENSA_CHECK(b.device() == x.device(), DeviceError, "linear: x and b must be on one device, got ", x.device(),
                " and ", b.device());
    expect_ndim(b, 1, "linear", "b");
    RENSA_CHECK(b.shape()[0] == W.shape()[0], DimensionError,
                "linear: Expect: b.shape[0] == W.shape[0], Actual: ", b.shape()[0], " != ", W.shape()[0]);
}

// x as (prod(shape[:n]), prod(shape[n:])) when it is not that already.
Variable as_matrix(const Variable& x, int n_batch_axes) {
    if (n_batch_axes == 1 && x.ndim() <= 2) return x;
    int64_t batch = 1, rest = 1;
    for (int d = 0; d < x.ndim(); ++d) (d < n_batch_axes ? batch : rest) *= x.shape()[d];
    return rensa::reshape(x, {batch, rest});
}

}  // namespace

Variable linear(const Variable& x, const Variable& W, const Variable& b, int n_batch_axes) {
    RENSA_CHECK(n_batch_axes > 0, ValueError, "linear: n_batch_axes should be greater than 0, got ", n_batch_axes);
    RENSA_CHECK(x.ndim() >= n_batch_axes, DimensionError, "linear: Expect: x.ndim >= n_batch_axes, Actual: ", x.ndim(),
                " < ", n_batch_axes);
    const Variable x2 = as_matrix(x, n_batch_axes);
    check_linear_types(x2, W, b);
    Variable y = b.defined() ? apply_node<LinearFunction>({x2, W, b}) : apply_node<LinearFunction>({x2, W});
    if (n_batch_axes == 1) return y;
    Shape y_shape(x.shape().begin(), x.shape().begin() + n_batch_axes);
    y_shape.push_back(W.shape()[0]);
    return rensa::reshape(y, y_shape);
}

}  // namespace rensa::functions
