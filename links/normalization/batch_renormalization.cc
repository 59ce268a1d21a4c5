#include "links/normalization/batch_renormalization.h"

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/normalization.h"

namespace rensa::links {

BatchRenormalization::BatchRenormalization(int64_t size, double rmax, double dmax,
                                           const BatchNormalizationOptions& options)
    : Cloneable<BatchRenormalization, BatchNormalization>(size, options), rmax{rmax}, dmax{dmax} {
    RENSA_CHECK(!options.axis, ValueError, "BatchRenormalization: axis is not an option of this link");
}

Variable BatchRenormalization::forward(const Variable& x, const BatchNormalizationForwardOptions& options) {
    prepare_statistics(x.shape());
    const Variable g = gamma.defined() ? Variable(gamma) : Variable(ops::ones_like(avg_mean, x.dtype()), false);
    const Variable b = beta.defined() ? Variable(beta) : Variable(ops::zeros_like(avg_mean, x.dtype()), false);
    if (!config().train) {
        return F::fixed_batch_normalization(x, g, b, Variable(avg_mean, false), Variable(avg_var, false), eps);
    }
    double step_decay = decay;
    if (options.finetune) {
        N += 1;
        step_decay = 1.0 - 1.0 / static_cast<double>(N);
    }
    return F::batch_renormalization(
        x, g, b, rmax, dmax,
        {.eps = eps, .running_mean = avg_mean, .running_var = avg_var, .decay = step_decay, .update_statistics = true});
}

}  // namespace rensa::links
