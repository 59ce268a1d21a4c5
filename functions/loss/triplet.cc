#include <memory>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

// loss = max(||a - p||^2 - ||a - n||^2 + margin, 0) per row. With m = [loss > 0] held
// constant and g = gy (/ N): ga = 2 g m (n - p), gp = 2 g m (p - a), gn = 2 g m (a - n).
class Triplet : public FunctionNode {
public:
    Triplet(double margin, bool mean) : margin_{margin}, mean_{mean} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1, 2});
        const Array& a = xs[0];
        const Array dist =
            ops::add(ops::sum(ops::subtract(ops::square(ops::subtract(a, xs[1])), ops::square(ops::subtract(a, xs[2]))),
                              Axes{1}),
                     margin_);
        const Array hinge = ops::maximum(dist, 0);
        mask_ = ops::greater(hinge, 0).astype(a.dtype()).reshape({-1, 1});
        if (!mean_) return {hinge};
        return {ops::divide(ops::sum(hinge), static_cast<double>(a.shape()[0]))};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const int64_t n = input_shape(0)[0];
        const Variable g = mean_ ? gys[0] / static_cast<double>(n) : rensa::reshape(gys[0], {n, 1});
        const Variable tmp = 2.0 * g * Variable(mask_, false);
        const Variable a = retained_input(0), p = retained_input(1), ng = retained_input(2);
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(tmp * (i == 0 ? ng - p : i == 1 ? p - a : a - ng));
        return gxs;
    }
    std::string label() const override { return "Triplet"; }

private:
    double margin_;
    bool mean_;
    Array mask_;  // (N, 1) in the inputs' dtype
};

}  // namespace

Variable triplet(const Variable& anchor, const Variable& positive, const Variable& negative, double margin,
                 std::string_view reduce) {
    detail::check_loss_reduce("triplet", reduce, {"mean", "no"});
    RENSA_CHECK(margin > 0, ValueError, "triplet: margin should be positive value, but ", margin, " is given");
    expect_float(anchor, "triplet", "anchor");
    expect_same_dtype(anchor, positive, "triplet", "anchor", "positive");
    expect_same_shape(anchor, positive, "triplet", "anchor", "positive");
    expect_same_dtype(anchor, negative, "triplet", "anchor", "negative");
    expect_same_shape(anchor, negative, "triplet", "anchor", "negative");
    expect_ndim(anchor, 2, "triplet", "anchor");
    RENSA_CHECK(anchor.shape()[0] > 0, DimensionError, "triplet: Expect: anchor.shape[0] > 0, Actual: 0");
    return std::make_shared<Triplet>(margin, reduce == "mean")->apply({anchor, positive, negative})[0];
}

}  // namespace rensa::functions
