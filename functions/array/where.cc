// where: condition ? x : y with broadcasting; each gradient is where() of the output's
// gradient against zeros, summed back to the input's shape.

#include <memory>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

class Where : public FunctionNode {
public:
    explicit Where(Array condition) : condition_{std::move(condition)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::where(condition_, xs[0], xs[1])}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable& gy = gys[0];
        const Variable zero = array_detail::zeros({}, gy.dtype(), gy.device());
        const Variable c(condition_, false);
        return {sum_to(where(c, gy, zero), input_shape(0)), sum_to(where(c, zero, gy), input_shape(1))};
    }
    std::string label() const override { return "Where"; }

private:
    Array condition_;
};

}  // namespace

Variable where(const Variable& condition, const Variable& x, const Variable& y) {
    expect_defined(condition, "where", "condition");
    return where(condition.array(), x, y);
}

Variable where(const Array& condition, const Variable& x, const Variable& y) {
    RENSA_CHECK(condition.defined(), ValueError, "where: Expect: condition to be defined, Actual: undefined Array");
    RENSA_CHECK(condition.dtype() == Dtype::kBool, DtypeError,
                "where: Expect: condition.dtype == bool, Actual: ", dtype_name(condition.dtype()));
    expect_same_dtype(x, y, "where", "x", "y");
    (void)broadcast_shapes(broadcast_shapes(condition.shape(), x.shape(), "where"), y.shape(), "where");
    return std::make_shared<Where>(condition)->apply({x, y})[0];
}

}  // namespace rensa::functions
