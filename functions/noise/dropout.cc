#include "autograd/basic_math.h"
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
    RENSA_CHECK(x.defined(), ValueError, "dropout: x is an undefined Variable");
    RENSA_CHECK(is_float(x.dtype()), DtypeError,
                "dropout: Expect: x.dtype.kind == 'f', Actual: ", dtype_name(x.dtype()));
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
    RENSA_CHECK(mask.defined(), ValueError, "dropout: mask is undefined");
    RENSA_CHECK(mask.shape() == x.shape(), DimensionError,
                "dropout: Expect: mask.shape == x.shape, Actual: ", mask.shape(), " != ", x.shape());
    RENSA_CHECK(mask.dtype() == x.dtype(), DtypeError,
                "dropout: Expect: mask.dtype == x.dtype, Actual: ", dtype_name(mask.dtype()),
                " != ", dtype_name(x.dtype()));
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
