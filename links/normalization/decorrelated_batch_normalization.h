#pragma once
// DecorrelatedBatchNormalization (chainer.links.DecorrelatedBatchNormalization): ZCA
// whitening per group of channels (F::decorrelated_batch_normalization) with running
// statistics for inference; no learned scale or shift, as in Chainer.
//   training (config().train): batch statistics; avg_mean and avg_projection updated in place
//                               (decay, or 1 - 1/N after N += 1 when fine-tuning);
//   testing: F::fixed_decorrelated_batch_normalization with avg_mean and avg_projection.
// NPZ keys are Chainer's: avg_mean (groups, C), avg_projection (groups, C, C), N.

#include <cstdint>

#include "autograd/variable.h"
#include "links/link.h"
#include "links/normalization/batch_normalization.h"

namespace rensa::links {

class DecorrelatedBatchNormalization : public Cloneable<DecorrelatedBatchNormalization> {
public:
    // size: the number of channels, a multiple of groups (ValueError otherwise); the
    // statistics start as zero mean and identity projections.
    explicit DecorrelatedBatchNormalization(int64_t size, int64_t groups = 16, double decay = 0.9, double eps = 2e-5,
                                            Dtype dtype = Dtype::kFloat32);

    using Link::forward;
    Variable forward(const Variable& x) override { return forward(x, {}); }
    Variable forward(const Variable& x, const BatchNormalizationForwardOptions& options);
    void start_finetuning() { N = 0; }

    Array avg_mean, avg_projection;
    int64_t N = 0;  // NOLINT(readability-identifier-naming): Chainer's name
    double decay, eps;
    int64_t groups;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
