// cross_covariance and decov: penalties on the covariance of mini-batch features, composed
// of differentiable functions (their gradients and second derivatives are autograd's).

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

// x minus its mean over the batch axis.
Variable centered(const Variable& x) { return x - mean(x, 0, true); }

Variable half_squared_sum(const Variable& c) { return sum(c * c) * 0.5; }

void check_features(const Variable& x, std::string_view function, std::string_view name) {
    expect_float(x, function, name);
    expect_ndim(x, 2, function, name);
}

}  // namespace

Variable cross_covariance(const Variable& y, const Variable& z, std::string_view reduce) {
    detail::check_loss_reduce("cross_covariance", reduce, {"half_squared_sum", "no"});
    check_features(y, "cross_covariance", "y");
    check_features(z, "cross_covariance", "z");
    expect_same_dtype(y, z, "cross_covariance", "y", "z");
    RENSA_CHECK(y.shape()[0] == z.shape()[0], DimensionError,
                "cross_covariance: Expect: y.shape[0] == z.shape[0], Actual: ", y.shape()[0], " != ", z.shape()[0]);
    const double n = static_cast<double>(y.shape()[0]);
    const Variable covariance = matmul(centered(y), centered(z), true, false) / n;
    return reduce == "no" ? covariance : half_squared_sum(covariance);
}

Variable decov(const Variable& h, std::string_view reduce) {
    detail::check_loss_reduce("decov", reduce, {"half_squared_sum", "no"});
    check_features(h, "decov", "h");
    const int64_t units = h.shape()[1];
    const Variable hc = centered(h);
    // The diagonal (each unit's own variance) is not penalised: a constant mask zeroes it.
    const Array off_diagonal = ops::subtract(ops::ones({units, units}, h.dtype(), h.device()),
                                             ops::eye(units, std::nullopt, 0, h.dtype(), h.device()));
    const Variable covariance =
        matmul(hc, hc, true, false) * as_variable(off_diagonal) / static_cast<double>(h.shape()[0]);
    return reduce == "no" ? covariance : half_squared_sum(covariance);
}

}  // namespace rensa::functions
