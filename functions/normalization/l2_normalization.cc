// normalize (Chainer's NormalizeL2): y = x / (||x||_2 along axis + eps), axis one axis or
// several. Forward on arrays, backward composed of differentiable functions (double backprop).

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/array.h"
#include "functions/normalization.h"

namespace rensa::functions {
namespace {

class NormalizeL2 : public FunctionNode {
public:
    NormalizeL2(double eps, Axes axes) : eps_{eps}, axes_{std::move(axes)} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0});
        const Array& x = in[0];
        const Dtype cd = x.dtype() == Dtype::kFloat16 || x.dtype() == Dtype::kBFloat16 ? Dtype::kFloat32 : x.dtype();
        const Array xc = x.astype(cd, false);
        const Array norm = ops::add(ops::sqrt(ops::sum(ops::square(xc), axes_, true)), eps_);
        return {ops::divide(xc, norm).astype(x.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0), gy = gys[0];
        const Variable norm_noeps = pow(sum(x * x, axes_, true), 0.5);
        const Variable norm = norm_noeps + eps_;
        // Note [Normalize at zero]: as in Chainer, the term divided by the eps-free norm is
        // zero where that norm is zero, so a zero vector gets gy / eps and no NaN, in backward
        // and in double backward (the division only sees nonzero norms).
        const Array nonzero = ops::not_equal(norm_noeps.array(), Scalar{0.0});
        const Variable safe_norm = where(nonzero, norm_noeps, Variable(ops::ones_like(norm_noeps.array()), false));
        const Variable x_gy_reduced =
            where(nonzero, sum(x * gy, axes_, true) / safe_norm, Variable(ops::zeros_like(norm_noeps.array()), false));
        return {(gy * norm - x_gy_reduced * x) / (norm * norm)};
    }
    std::string label() const override { return "NormalizeL2"; }

private:
    double eps_;
    Axes axes_;
};

}  // namespace

Variable normalize(const Variable& x, double eps, const Axes& axis) {
    expect_defined(x, "normalize", "x");
    expect_float(x, "normalize", "x");
    return std::make_shared<NormalizeL2>(eps, normalize_axes(axis, x.ndim(), "normalize"))->apply({x})[0];
}

Variable normalize(const Variable& x, double eps, int axis) { return normalize(x, eps, Axes{axis}); }

}  // namespace rensa::functions
