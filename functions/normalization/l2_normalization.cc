// normalize (Chainer's NormalizeL2): y = x / (||x||_2 along axis + eps). Forward on arrays,
// backward composed of differentiable functions (double backprop).

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/normalization.h"

namespace rensa::functions {
namespace {

class NormalizeL2 : public FunctionNode {
public:
    NormalizeL2(double eps, int axis) : eps_{eps}, axis_{axis} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0});
        const Array& x = in[0];
        const Dtype cd = x.dtype() == Dtype::kFloat16 || x.dtype() == Dtype::kBFloat16 ? Dtype::kFloat32 : x.dtype();
        const Array xc = x.astype(cd, false);
        const Array norm = ops::add(ops::sqrt(ops::sum(ops::square(xc), Axes{axis_}, true)), eps_);
        return {ops::divide(xc, norm).astype(x.dtype(), false)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0), gy = gys[0];
        const Axes axes{axis_};
        const Variable norm_noeps = pow(sum(x * x, axes, true), 0.5);
        const Variable norm = norm_noeps + eps_;
        const Variable x_gy_reduced = sum(x * gy, axes, true) / norm_noeps;
        return {(gy * norm - x_gy_reduced * x) / (norm * norm)};
    }
    std::string label() const override { return "NormalizeL2"; }

private:
    double eps_;
    int axis_;
};

}  // namespace

Variable normalize(const Variable& x, double eps, int axis) {
    expect_float(x, "normalize", "x");
    const int normalized = normalize_axis(axis, x.ndim(), "normalize");
    return std::make_shared<NormalizeL2>(eps, normalized)->apply({x})[0];
}

}  // namespace rensa::functions
