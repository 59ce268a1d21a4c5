#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "functions/noise.h"

namespace rensa::functions {
namespace {

// y = x * mask with a constant mask (0 or 1 / (1 - ratio)); gx = gy * mask, linear in gy.
class Dropout : public FunctionNode {
public:
    explicit Dropout(Array mask) : mask_{std::move(mask)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::multiply(xs[0], mask_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] * Variable(mask_, false)};
    }
    std::string label() const override { return "Dropout"; }

private:
    Array mask_;
};

void check_dropout(const Variable& x, double ratio) {
    expect_float(x, "dropout", "x");
    RENSA_CHECK(ratio >= 0.0 && ratio < 1.0, ValueError, "dropout: ratio must be in the range from 0.0 to 1.0 ",
                "(excluding 1.0), got ", ratio);
}

// Elements kept with probability 1 - ratio, scaled by 1 / (1 - ratio), in x's dtype.
Array make_mask(const Array& x, double ratio) {
    return ops::multiply(ops::bernoulli(x.shape(), 1.0 - ratio, x.dtype(), x.device()), 1.0 / (1.0 - ratio));
}

}  // namespace

Variable dropout(const Variable& x, double ratio) { return dropout_with_mask(x, ratio).first; }

Variable dropout(const Variable& x, double ratio, const Array& mask) {
    check_dropout(x, ratio);
    RENSA_CHECK(mask.defined(), ValueError, "dropout: Expect: mask to be defined, Actual: undefined Array");
    const Variable mask_var(mask, false);  // a constant view, for the checks
    expect_same_shape(mask_var, x, "dropout", "mask", "x");
    expect_same_dtype(mask_var, x, "dropout", "mask", "x");
    if (!config().train) return x;
    return std::make_shared<Dropout>(mask)->apply({x})[0];
}

std::pair<Variable, Array> dropout_with_mask(const Variable& x, double ratio) {
    check_dropout(x, ratio);
    if (!config().train) return {x, Array()};
    Array mask = make_mask(x.array(), ratio);
    return {std::make_shared<Dropout>(mask)->apply({x})[0], mask};
}

}  // namespace rensa::functions
