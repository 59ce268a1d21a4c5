#include "links/normalization/decorrelated_batch_normalization.h"

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/normalization.h"

namespace rensa::links {

DecorrelatedBatchNormalization::DecorrelatedBatchNormalization(int64_t size, int64_t groups, double decay, double eps,
                                                               Dtype dtype)
    : decay{decay}, eps{eps}, groups{groups} {
    RENSA_CHECK(groups > 0 && size > 0 && size % groups == 0, ValueError,
                "DecorrelatedBatchNormalization: Expect: size % groups == 0, Actual: size = ", size,
                ", groups = ", groups);
    const int64_t c = size / groups;
    avg_mean = ops::zeros({groups, c}, dtype);
    avg_projection = ops::eye(c, std::nullopt, 0, dtype).reshape({1, c, c}).broadcast_to({groups, c, c}).copy();
    register_persistent("avg_mean", &DecorrelatedBatchNormalization::avg_mean);
    register_persistent("avg_projection", &DecorrelatedBatchNormalization::avg_projection);
    register_persistent("N", &DecorrelatedBatchNormalization::N);
}

Variable DecorrelatedBatchNormalization::forward(const Variable& x, const BatchNormalizationForwardOptions& options) {
    if (avg_mean.device() != x.device()) {
        avg_mean = avg_mean.to_device(x.device());
        avg_projection = avg_projection.to_device(x.device());
    }
    if (!config().train) {
        return F::fixed_decorrelated_batch_normalization(x, Variable(avg_mean, false), Variable(avg_projection, false),
                                                         groups);
    }
    double step_decay = decay;
    if (options.finetune) {
        N += 1;
        step_decay = 1.0 - 1.0 / static_cast<double>(N);
    }
    return F::decorrelated_batch_normalization(x, {.groups = groups,
                                                   .eps = eps,
                                                   .running_mean = avg_mean,
                                                   .running_projection = avg_projection,
                                                   .decay = step_decay});
}

}  // namespace rensa::links
