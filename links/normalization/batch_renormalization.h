#pragma once
// BatchRenormalization (chainer.links.BatchRenormalization): a BatchNormalization whose
// training mode calls F::batch_renormalization with the running statistics (updated in
// place, fine-tuning included) and whose test mode is fixed_batch_normalization. rmax
// bounds the variance correction r, dmax the mean correction d. NPZ keys are
// BatchNormalization's (gamma, beta, avg_mean, avg_var, N).

#include <cstdint>

#include "links/normalization/batch_normalization.h"

namespace rensa::links {

class BatchRenormalization : public Cloneable<BatchRenormalization, BatchNormalization> {
public:
    // Chainer's (size, rmax=1, dmax=0, decay, eps, dtype, use_gamma, use_beta, initial_*);
    // options.axis must stay unset (Chainer's link has none: ValueError).
    explicit BatchRenormalization(int64_t size, double rmax = 1.0, double dmax = 0.0,
                                  const BatchNormalizationOptions& options = {});

    using BatchNormalization::forward;
    Variable forward(const Variable& x, const BatchNormalizationForwardOptions& options) override;

    double rmax, dmax;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
