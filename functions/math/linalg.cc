// det, batch_det, inv, batch_inv and cholesky: the factorisations of
// functions/math/linalg_factor.cc with Chainer's gradients, built from differentiable
// functions so that double backprop works as in Chainer.

#include <memory>
#include <string>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/operators.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/math/detail.h"
#include "functions/math/linalg_detail.h"

namespace rensa::functions {
namespace {

// y = inv(a) per matrix; ga = -y^T gy y^T.
class BatchInv : public FunctionNode {
public:
    explicit BatchInv(std::string op) : op_{std::move(op)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {math_detail::batch_inv_array(xs[0], op_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable y = retained_output(0);
        return {matmul(matmul(-y, gys[0], /*transa=*/true), y, false, /*transb=*/true)};
    }
    std::string label() const override { return "BatchInv"; }

private:
    std::string op_;
};

// y = det(a) per matrix; ga = gy * y * inv(a)^T.
class BatchDet : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        retain_outputs({0});
        return {math_detail::batch_det_array(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable inv_t = batch_inv(transpose(retained_input(0), {0, 2, 1}));
        const Shape& shape = inv_t.shape();
        const auto spread = [&shape](const Variable& v) { return broadcast_to(reshape(v, {shape[0], 1, 1}), shape); };
        return {spread(gys[0]) * spread(retained_output(0)) * inv_t};
    }
    std::string label() const override { return "det"; }
};

// y = L with a = L L^T; Chainer's gradient: phi = (tril(1) - I/2) * (L^T gy),
// s = L^-T phi L^-1, ga = (s + s^T) / 2.
class Cholesky : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {math_detail::cholesky_array(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable y = retained_output(0);
        const int64_t n = y.shape()[0];
        const Array tri =
            ops::ones({n, n}, y.dtype(), y.device()) * (ops::arange(n, Dtype::kInt64, y.device()).expand_dims(1) >=
                                                        ops::arange(n, Dtype::kInt64, y.device()).expand_dims(0))
                                                           .astype(y.dtype());
        const Array mask = tri - 0.5 * ops::eye(n, std::nullopt, 0, y.dtype(), y.device());
        const Variable y_inv = inv(y);
        const Variable phi = Variable(mask, false) * matmul(y, gys[0], /*transa=*/true);
        const Variable s = matmul(matmul(y_inv, phi, /*transa=*/true), y_inv);
        return {0.5 * (s + transpose(s))};
    }
    std::string label() const override { return "cholesky"; }
};

void expect_square(const Variable& a, int ndim, const char* op) {
    expect_float(a, op, "a");
    expect_ndim(a, ndim, op, "a");
    RENSA_CHECK(a.shape()[ndim - 1] == a.shape()[ndim - 2], DimensionError, op,
                ": Expect: a.shape[-1] == a.shape[-2], Actual: a.shape ", a.shape());
}

Variable as_batch(const Variable& a) { return reshape(a, {1, a.shape()[0], a.shape()[1]}); }

}  // namespace

Variable batch_det(const Variable& a) {
    expect_square(a, 3, "batch_det");
    return math_detail::apply1<BatchDet>({a});
}

Variable det(const Variable& a) {
    expect_square(a, 2, "det");
    return reshape(math_detail::apply1<BatchDet>({as_batch(a)}), Shape{});
}

Variable batch_inv(const Variable& a) {
    expect_square(a, 3, "batch_inv");
    return math_detail::apply1<BatchInv>({a}, std::string{"batch_inv"});
}

Variable inv(const Variable& a) {
    expect_square(a, 2, "inv");
    return reshape(math_detail::apply1<BatchInv>({as_batch(a)}, std::string{"inv"}), a.shape());
}

Variable cholesky(const Variable& a) {
    expect_square(a, 2, "cholesky");
    return math_detail::apply1<Cholesky>({a});
}

}  // namespace rensa::functions
