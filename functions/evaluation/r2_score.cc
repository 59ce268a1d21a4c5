// r2_score: Chainer's coefficient of determination, computed on the device with core/ops.

#include "autograd/check.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/evaluation.h"

namespace rensa::functions {

Variable r2_score(const Variable& pred, const Variable& true_values, const Variable& sample_weight,
                  std::string_view multioutput) {
    const char* f = "r2_score";
    RENSA_CHECK(!sample_weight.defined(), NotImplementedError, f, ": sample_weight is not supported (as in Chainer)");
    const bool uniform = multioutput == "uniform_average";
    RENSA_CHECK(uniform || multioutput == "raw_values", ValueError, f,
                ": Expect: multioutput in ('uniform_average', 'raw_values'), Actual: '", multioutput, "'");
    expect_same_float(pred, true_values, f, "pred", "true");
    expect_same_shape(pred, true_values, f, "pred", "true");
    RENSA_CHECK(pred.ndim() >= 1, DimensionError, f, ": Expect: pred.ndim >= 1 (axis 0 holds the samples), Actual: 0");
    // float64 throughout, so float16 inputs lose nothing before the final rounding.
    const Array p = pred.array().astype(Dtype::kFloat64, false);
    const Array t = true_values.array().astype(Dtype::kFloat64, false);
    const Array ss_res = ops::sum(ops::square(ops::subtract(t, p)), Axes{0});
    const Array ss_tot = ops::sum(ops::square(ops::subtract(t, ops::mean(t, Axes{0}, true))), Axes{0});
    const Array constant = ops::equal(ss_tot, 0);  // Chainer: a score of 0 there, not a division by 0
    const Array score =
        ops::where(constant, 0.0, ops::subtract(1.0, ops::divide(ss_res, ops::where(constant, 1.0, ss_tot))));
    return Variable((uniform ? ops::mean(score) : score).astype(pred.dtype()), false);
}

}  // namespace rensa::functions
