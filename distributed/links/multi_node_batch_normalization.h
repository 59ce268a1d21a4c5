#pragma once
// MultiNodeBatchNormalization (chainermn.links.MultiNodeBatchNormalization): batch
// normalization whose batch statistics are taken over the union of every rank's batch.
//
// Note [Multi-node batch statistics]: forward all-reduces the per-channel sums and the
// sample counts (one collective), then the sums of squared deviations from the global mean
// (a second one: two passes avoid the cancellation of E[x^2] - E[x]^2), so ranks may hold
// batches of different sizes and every rank sees exactly the mean and (biased) variance of
// the concatenated batch. Backward all-reduces the two per-channel gradient sums
// (sum(gy), sum(gy * x_hat)) in one collective and returns, on every rank, the gradient of
// the sum of all ranks' losses with respect to its own x. The gradients of gamma and beta
// are this rank's own sums, so the multi-node optimizer's average over ranks scales them
// exactly like every other parameter's (their sum over ranks is the single-process
// gradient on the concatenated batch). Every rank must call forward and backward the same
// number of times, in the same order (they are collectives). The backward is not itself
// differentiable (no double backprop), as in ChainerMN.

#include <cstdint>
#include <optional>

#include "autograd/variable.h"
#include "distributed/communicator.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::distributed {

// Options of multi_node_batch_normalization (the function).
struct MultiNodeBatchNormalizationFunctionOptions {
    double eps = 2e-5;
    // Running statistics (gamma's shape), updated in place when defined with the global
    // mean and the global unbiased variance (M / (M - 1), M: the total sample count).
    Array running_mean{}, running_var{};
    double decay = 0.9;
};

// Batch normalization in training mode with statistics over all ranks (See Note
// [Multi-node batch statistics]); statistics over axis 0 and the axes after gamma's.
// Collective. DtypeError / DimensionError as F::batch_normalization.
[[nodiscard]] Variable multi_node_batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                                      const CommunicatorPtr& comm,
                                                      const MultiNodeBatchNormalizationFunctionOptions& options = {});

// Chainer's keyword arguments of MultiNodeBatchNormalization.
struct MultiNodeBatchNormalizationOptions {
    double decay = 0.9;
    double eps = 2e-5;
    Dtype dtype = Dtype::kFloat32;  // parameters and statistics: float32 for 16-bit inputs
    bool use_gamma = true, use_beta = true;
    initializers::InitializerPtr initial_gamma{};  // null: 1
    initializers::InitializerPtr initial_beta{};   // null: 0
};

class MultiNodeBatchNormalization : public links::Cloneable<MultiNodeBatchNormalization> {
public:
    // `size`: the shape of gamma, beta and the statistics (x.shape[1 : 1 + size.ndim]).
    // ValueError when comm is null.
    MultiNodeBatchNormalization(Shape size, CommunicatorPtr comm,
                                const MultiNodeBatchNormalizationOptions& options = {});
    MultiNodeBatchNormalization(int64_t size, CommunicatorPtr comm,
                                const MultiNodeBatchNormalizationOptions& options = {})
        : MultiNodeBatchNormalization(Shape{size}, std::move(comm), options) {}

    // Training (config().train): multi_node_batch_normalization, updating avg_mean/avg_var
    // identically on every rank (a collective). Testing: fixed_batch_normalization with the
    // running statistics, local only.
    using Link::forward;
    Variable forward(const Variable& x) override;

    links::Parameter gamma, beta;  // undefined when use_gamma / use_beta is false
    Array avg_mean, avg_var;
    int64_t N = 0;  // NOLINT(readability-identifier-naming): Chainer's name (kept for NPZ keys)
    double decay, eps;

private:
    CommunicatorPtr comm_;
};

}  // namespace rensa::distributed
